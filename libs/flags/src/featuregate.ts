// component-base's feature gates: a fixed table of known gates with a stage and a default, set from a
// `Name=bool` map. `AllAlpha` / `AllBeta` switch every gate of that stage that was not set by name.

export type FeatureStage = 'ALPHA' | 'BETA' | 'GA' | 'DEPRECATED';

export interface FeatureSpec {
  stage: FeatureStage;
  default: boolean;
  /** GA or deprecated gates locked to their default refuse any other value. */
  lockToDefault?: boolean;
}

export const ALL_ALPHA_GATE = 'AllAlpha';
export const ALL_BETA_GATE = 'AllBeta';

export class FeatureGate {
  private readonly known: ReadonlyMap<string, FeatureSpec>;
  private readonly explicit = new Map<string, boolean>();

  constructor(known: Record<string, FeatureSpec>) {
    const table = new Map(Object.entries(known));
    if (!table.has(ALL_ALPHA_GATE)) table.set(ALL_ALPHA_GATE, { stage: 'ALPHA', default: false });
    if (!table.has(ALL_BETA_GATE)) table.set(ALL_BETA_GATE, { stage: 'BETA', default: false });
    this.known = table;
  }

  /**
   * SetFromMap: applies `values` in key order and throws on the first unknown or locked gate, leaving the
   * gate unchanged (upstream applies nothing when one entry is bad either). Returns warnings to log.
   */
  setFromMap(values: Record<string, boolean>): string[] {
    const warnings: string[] = [];
    const keys = Object.keys(values).sort();
    for (const k of keys) {
      const spec = this.known.get(k);
      if (!spec) throw new Error(`unrecognized feature gate: ${k}`);
      if (spec.lockToDefault && spec.default !== values[k]) {
        throw new Error(`cannot set feature gate ${k} to ${values[k]}, feature is locked to ${spec.default}`);
      }
    }
    for (const k of keys) {
      const spec = this.known.get(k)!;
      this.explicit.set(k, values[k]);
      if (spec.stage === 'GA' || spec.stage === 'DEPRECATED') {
        const word = spec.stage === 'GA' ? 'GA' : 'deprecated';
        warnings.push(`Setting ${word} feature gate ${k}=${values[k]}. It will be removed in a future release.`);
      }
    }
    return warnings;
  }

  enabled(name: string): boolean {
    const spec = this.known.get(name);
    if (!spec) throw new Error(`feature ${JSON.stringify(name)} is not registered in FeatureGate`);
    const set = this.explicit.get(name);
    if (set !== undefined) return set;
    if (spec.stage === 'ALPHA' && name !== ALL_ALPHA_GATE && this.explicit.get(ALL_ALPHA_GATE)) return true;
    if (spec.stage === 'BETA' && name !== ALL_BETA_GATE && this.explicit.get(ALL_BETA_GATE)) return true;
    return spec.default;
  }

  has(name: string): boolean {
    return this.known.has(name);
  }

  /** The gates set by name, for printing the effective configuration. */
  explicitValues(): Record<string, boolean> {
    return Object.fromEntries([...this.explicit].sort(([a], [b]) => (a < b ? -1 : 1)));
  }

  copy(): FeatureGate {
    const c = new FeatureGate(Object.fromEntries(this.known));
    for (const [k, v] of this.explicit) c.explicit.set(k, v);
    return c;
  }

  /** `Name=true|false (ALPHA - default=false)` lines, sorted; GA and deprecated gates are not listed. */
  knownFeatures(): string[] {
    const out: string[] = [];
    for (const [name, spec] of this.known) {
      if (spec.stage === 'GA' || spec.stage === 'DEPRECATED') continue;
      out.push(`${name}=true|false (${spec.stage} - default=${spec.default})`);
    }
    return out.sort();
  }
}
