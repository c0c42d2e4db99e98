// Small autoscaler objects and states for the store tests (already in defaulted form).
import type { HorizontalPodAutoscaler, HorizontalPodAutoscalerStatus } from '../../lib/hpa/types.js';

export function hpa(name: string, namespace = 'default', maxReplicas = 10): HorizontalPodAutoscaler {
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name, namespace },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
      minReplicas: 1,
      maxReplicas,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } }],
    },
  };
}

export function status(replicas: number, utilization: number, at = '2025-01-01T00:00:00.000Z'): HorizontalPodAutoscalerStatus {
  return {
    currentReplicas: replicas,
    desiredReplicas: replicas,
    currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: utilization, averageValue: `${utilization * 5}m` } } }],
    conditions: [
      { type: 'AbleToScale', status: 'True', lastTransitionTime: at, reason: 'ReadyForNewScale', message: 'recommended size matches current size' },
      {
        type: 'ScalingActive',
        status: 'True',
        lastTransitionTime: at,
        reason: 'ValidMetricFound',
        message: 'the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)',
      },
      { type: 'ScalingLimited', status: 'False', lastTransitionTime: at, reason: 'DesiredWithinRange', message: 'the desired count is within the acceptable range' },
    ],
  };
}
