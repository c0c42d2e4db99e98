// SQS errors as the service sends them over AWS JSON 1.0 to a query-compatible client:
// the body's __type names the modelled shape, x-amzn-query-error carries the old query
// protocol's code ("Code;Sender"), which @aws-sdk/client-sqs maps to its exception classes.
export class SqsError extends Error {
  constructor(
    readonly status: number,
    /** The body's __type. */
    readonly type: string,
    /** The x-amzn-query-error code, what the SDK's error.Code and error.name become. */
    readonly code: string,
    message: string,
    readonly senderFault = true,
  ) {
    super(message);
  }

  get queryError(): string {
    return `${this.code};${this.senderFault ? 'Sender' : 'Receiver'}`;
  }
}

const sqs = (shape: string, code: string, status = 400) => (message: string) => new SqsError(status, `com.amazonaws.sqs#${shape}`, code, message);
const coral = (shape: string, code: string, status = 400) => (message: string) => new SqsError(status, `com.amazon.coral.service#${shape}`, code, message);

export const sqsErrors = {
  queueDoesNotExist: () => sqs('QueueDoesNotExist', 'AWS.SimpleQueueService.NonExistentQueue')('The specified queue does not exist.'),
  queueNameExists: sqs('QueueNameExists', 'QueueAlreadyExists'),
  queueDeletedRecently: sqs('QueueDeletedRecently', 'AWS.SimpleQueueService.QueueDeletedRecently'),
  invalidParameterValue: coral('InvalidParameterValueException', 'InvalidParameterValue'),
  missingParameter: coral('MissingRequiredParameterException', 'MissingParameter'),
  invalidAttributeName: sqs('InvalidAttributeName', 'InvalidAttributeName'),
  invalidAttributeValue: sqs('InvalidAttributeValue', 'InvalidAttributeValue'),
  invalidMessageContents: sqs('InvalidMessageContents', 'InvalidMessageContents'),
  receiptHandleIsInvalid: sqs('ReceiptHandleIsInvalid', 'ReceiptHandleIsInvalid', 404),
  emptyBatchRequest: sqs('EmptyBatchRequest', 'AWS.SimpleQueueService.EmptyBatchRequest'),
  tooManyEntriesInBatchRequest: sqs('TooManyEntriesInBatchRequest', 'AWS.SimpleQueueService.TooManyEntriesInBatchRequest'),
  batchEntryIdsNotDistinct: sqs('BatchEntryIdsNotDistinct', 'AWS.SimpleQueueService.BatchEntryIdsNotDistinct'),
  batchRequestTooLong: sqs('BatchRequestTooLong', 'AWS.SimpleQueueService.BatchRequestTooLong'),
  invalidBatchEntryId: sqs('InvalidBatchEntryId', 'AWS.SimpleQueueService.InvalidBatchEntryId'),
  purgeQueueInProgress: sqs('PurgeQueueInProgress', 'AWS.SimpleQueueService.PurgeQueueInProgress', 403),
  unsupportedOperation: sqs('UnsupportedOperation', 'AWS.SimpleQueueService.UnsupportedOperation'),
  requestThrottled: () => sqs('RequestThrottled', 'RequestThrottled', 403)('Request is throttled.'),
  internalFailure: () =>
    new SqsError(500, 'com.amazon.coral.service#InternalFailure', 'InternalFailure', 'We encountered an internal error. Please try again.', false),
  unknownOperation: coral('UnknownOperationException', 'UnknownOperation'),
  serialization: coral('SerializationException', 'MalformedInput'),
  missingAuthentication: () =>
    new SqsError(403, 'com.amazon.coral.service#MissingAuthenticationTokenException', 'MissingAuthenticationToken', 'Request is missing a SigV4 signature'),
};
