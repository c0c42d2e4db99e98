// The algorithm library: autoscaling/v2 HPA semantics, exact to upstream Kubernetes. No I/O, clock passed in.
export * from './types.js';
export * from './quantity.js';
export * from './selector.js';
export * from './defaults.js';
export * from './validation.js';
export * from './replica-calculator.js';
export * from './behavior.js';
export * from './reconcile.js';
export * from './pause.js';
export * from './schedules.js';
export * from './annotations.js';
