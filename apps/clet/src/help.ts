// `clet --help`: upstream's long description with the product names, then the flags grouped by section.
import { buildFlagSet } from './options';

const LONG = `The clet is the primary "node agent" that runs on each
node. It can register the node with the apiserver using one of: the hostname; a flag to
override the hostname; or specific logic for a cloud provider.

The clet works in terms of a PodSpec. A PodSpec is a YAML or JSON object
that describes a pod. The clet takes a set of PodSpecs that are provided through
various mechanisms (primarily through the apiserver) and ensures that the containers
described in those PodSpecs are running and healthy. The clet doesn't manage
containers which were not created by cl.

Other than from an PodSpec from the apiserver, there are two ways that a container
manifest can be provided to the Clet.

File: Path passed as a flag on the command line. Files under this path will be monitored
periodically for updates. The monitoring period is 20s by default and is configurable
via a flag.

HTTP endpoint: HTTP endpoint passed as a parameter on the command line. This endpoint
is checked every 20 seconds (also configurable with a flag).`;

export function helpText(): string {
  return `${LONG}\n\nUsage:\n  clet [flags]\n\n${buildFlagSet().usage({ showDeprecated: true, sort: true })}`;
}
