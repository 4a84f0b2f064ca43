// The real API server for the controllers suite and a client for it: the same helpers @cl/kube-client's own suite
// uses (the built apps/apiserver binary started by its e2e harness, a client from the kubeconfig it writes).
// eslint-disable-next-line @nx/enforce-module-boundaries
export { clientFor, eventually, startApiserverProcess, type ApiserverProcess } from '../../kube-client/test/server';
