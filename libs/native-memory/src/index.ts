export { defaultAddonFile, loadMallocTrimmer, mallocTrimmer, trimMalloc, type MallocTrimmer } from './malloc-trim';
