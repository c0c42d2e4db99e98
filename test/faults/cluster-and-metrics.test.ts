// Faults of the Kubernetes API server, of CloudWatch, and of the metric values it returns.
import { GROUPS } from './scenarios.js';
import { describeFaults } from './describe-faults.js';

describeFaults('faults of the Kubernetes API, CloudWatch and metric values', [...GROUPS.kubernetes, ...GROUPS.cloudWatch, ...GROUPS.metrics]);
