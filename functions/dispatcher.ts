// Placeholder: being written (docs/architecture.md). Do not edit from a helper.
export const handler = async (): Promise<never> => {
  throw new Error('functions/dispatcher: not implemented yet');
};
