// YAML to JSON text as sigs.k8s.io/yaml's YAMLToJSON does it (go-yaml v2 rules: YAML 1.1 scalars, timestamps as
// strings, keys as strings, the first document only), for callers that decode JSON: the API server reads
// `application/yaml` request bodies through this.
import { nodeToSortedJson } from './tree';
import { parseYamlTree, YamlSyntaxError } from './yaml-tree';

/** The JSON text of the first YAML document of `text`; throws YamlSyntaxError with go-yaml's wording. */
export function yamlToJson(text: string): string {
  let tree: ReturnType<typeof parseYamlTree>;
  try {
    tree = parseYamlTree(text);
  } catch (e) {
    if (e instanceof YamlSyntaxError) throw e;
    // The parser is recursive: a document nested past its stack is input it cannot take, not a server error.
    throw new YamlSyntaxError(`yaml: ${(e as Error).message}`);
  }
  return nodeToSortedJson(tree.root);
}

export { YamlSyntaxError };
