// A real tinyproxy (Debian's package) on a free loopback port, the HTTP CONNECT proxy of the egress tests.
import { startProxyProcess, type ProxyProcess } from './proxy-process';

export type Tinyproxy = ProxyProcess;

/** CONNECT is allowed only to `allowedConnectPorts` when given (tinyproxy's ConnectPort), to any port otherwise. */
export function startTinyproxy(allowedConnectPorts: number[] = []): Promise<Tinyproxy> {
  return startProxyProcess({
    name: 'tinyproxy',
    config: (port) =>
      [
        'User nobody',
        'Group nogroup',
        `Port ${port}`,
        'Listen 127.0.0.1',
        'Timeout 60',
        'MaxClients 50',
        'LogLevel Connect',
        'Allow 127.0.0.1',
        ...allowedConnectPorts.map((p) => `ConnectPort ${p}`),
        '',
      ].join('\n'),
    command: (conf) => ['tinyproxy', ['-d', '-c', conf]],
  });
}
