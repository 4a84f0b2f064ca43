// The command line: the flag set built from the flag table, and applying explicitly given flags on top
// of a configuration (the last step of precedence: defaults <- file <- drop-ins <- flags).
import { FlagSet, formatDuration, goQuote, parseDuration, type ParseResult } from '@cl/flags';
import { flagDefaults } from './config/defaults';
import { getPath, setPath } from './config/path';
import type { CletConfiguration, CletFlags } from './config/types';
import { CLET_FLAGS, CONFIG_DEPRECATION, SECTIONS, type CletFlagDefinition } from './flags/definitions';
import { newFeatureGate } from './flags/gates';

const isDuration = (def: CletFlagDefinition) => def.type.name === 'duration';

function flagDefault(def: CletFlagDefinition, defaults: CletConfiguration): unknown {
  if (def.config === undefined) return def.default;
  const v = getPath(defaults, def.config);
  if (isDuration(def)) return parseDuration(v as string);
  if (v === undefined) return def.type.name === 'bool' ? false : def.type.name === 'string' ? '' : (def.default ?? '');
  return v;
}

export function buildFlagSet(): FlagSet {
  const defaults = flagDefaults();
  const fs = new FlagSet('clet');
  for (const def of CLET_FLAGS) {
    let usage = def.usage;
    if (def.name === 'feature-gates') usage += '\n' + newFeatureGate().knownFeatures().join('\n');
    const deprecated = def.deprecated ?? (def.config !== undefined && def.configOnly !== false ? CONFIG_DEPRECATION : undefined);
    fs.add({
      name: def.name,
      shorthand: def.shorthand,
      type: def.type,
      default: flagDefault(def, defaults),
      usage,
      section: SECTIONS[def.section],
      deprecated,
    });
  }
  return fs;
}

export interface CommandLine {
  parsed: ParseResult;
  flags: CletFlags;
  help: boolean;
  /** `false`, `true`, `raw`, or a version to report. */
  version: string;
}

export function parseCommandLine(argv: readonly string[]): CommandLine {
  const parsed = buildFlagSet().parse(argv);
  const flags = {} as Record<string, unknown>;
  for (const def of CLET_FLAGS) if (def.flag) flags[def.flag] = parsed.values[def.name];
  return {
    parsed,
    flags: flags as unknown as CletFlags,
    help: parsed.values.help === true,
    version: String(parsed.values.version),
  };
}

/** Every flag and its value, as upstream prints them at -v=1 on start (`FLAG: --address="0.0.0.0"`), by name. */
export function flagLines(cmd: CommandLine): string[] {
  return buildFlagSet()
    .definitions()
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .map((def) => {
      const value = cmd.parsed.values[def.name];
      // Flags whose default lives in the config file (vmodule) hold no value of their type until given.
      const text = value === undefined || value === null || (def.type.name.endsWith('Slice') || def.name === 'vmodule') && !Array.isArray(value) ? '' : def.type.format(value);
      return `FLAG: --${def.name}=${goQuote(text)}`;
    });
}

/** The explicitly given [C] flags' values on top of `config` (feature gates merge per gate). */
export function applyExplicitFlags(config: CletConfiguration, cmd: CommandLine): CletConfiguration {
  const out = structuredClone(config);
  for (const def of CLET_FLAGS) {
    if (def.config === undefined || !cmd.parsed.explicit.has(def.name)) continue;
    let v = cmd.parsed.values[def.name];
    if (isDuration(def)) v = formatDuration(v as number);
    if (def.name === 'feature-gates') v = { ...out.featureGates, ...(v as Record<string, boolean>) };
    setPath(out, def.config, structuredClone(v));
  }
  return out;
}
