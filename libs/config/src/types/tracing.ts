// TracingConfiguration (apiserver.config.k8s.io/v1alpha1, v1beta1), the component-base form inlined.
import type { TypeMeta } from './meta';

export interface TracingConfiguration extends TypeMeta {
  /** Collector address; unset means the OTLP gRPC default `localhost:4317`. */
  endpoint?: string;
  /** Samples per million spans; unset means follow the parent, otherwise never sample. */
  samplingRatePerMillion?: number;
}
