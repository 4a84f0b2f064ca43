// The API server's connections to node agents: address choice, the HTTPS client over the `cluster` egress
// selection, the --kubelet-* flags, and the routes that use them (pods/log, pods/exec, attach and portforward,
// nodes/proxy, pods/proxy), with the WebSocket-to-SPDY translation of exec, attach and port-forward.
export { DEFAULT_ADDRESS_TYPES, KNOWN_ADDRESS_TYPES, nodeConnection, hostPort } from './node-address';
export type { NodeConnection, NodeForConnection } from './node-address';
export { NodeAgentClient } from './node-agent-client';
export type { NodeAgentClientOptions } from './node-agent-client';
export { nodeConnectionRoutes } from './node-routes';
export type { NodeRoutesOptions } from './node-routes';
export { podLogOptions, logContainer, containerLogsPath } from './pod-log-options';
export { agentErrorStatus } from './agent-errors';
export { streamLocation } from './stream-location';
export type { PodStreamKind } from './stream-location';
export { addNodeAgentFlags, nodeAgentOptions, validateNodeAgentOptions } from './flags';
export type { NodeAgentOptions } from './flags';
export { SpdyClientSession, SpdyStream } from './spdy-session';
export { V5_CHANNEL_PROTOCOL, AGENT_REMOTE_COMMAND_PROTOCOL } from './stream-translator';
export { PORT_FORWARD_TUNNEL_PROTOCOL } from './stream-translator-tunnel';
export { splitSchemeNamePort, podProxyLocation } from './pod-proxy';
