// A konnectivity-compatible tunnel server for tests, built from a .proto with grpc-js + proto-loader (independent
// of the library's hand-written codec). In `forward` mode it behaves like server+agent: it really dials the address.
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import * as net from 'node:net';
import * as path from 'node:path';

export interface WirePacket {
  type: string;
  payload?: string;
  dialRequest?: { protocol: string; address: string; random: string };
  dialResponse?: { error: string; connectID: string; random: string };
  data?: { connectID: string; error: string; data: Buffer };
  closeRequest?: { connectID: string };
  closeResponse?: { error: string; connectID: string };
  closeDial?: { random: string };
}

export type TunnelMode =
  | { kind: 'forward' }
  | { kind: 'echo'; connectID: number }
  | { kind: 'dialError'; error: string }
  | { kind: 'dialClose' }
  | { kind: 'silent' };

export interface KonnectivityServer {
  mode: TunnelMode;
  /** Packets received on each stream, in order. */
  streams: WirePacket[][];
  /** Resolves when the n-th stream (0-based) has ended from the client side. */
  streamEnded(n: number): Promise<void>;
  close(): Promise<void>;
}

const definition = protoLoader.loadSync(path.join(__dirname, '../fixtures/konnectivity.proto'), {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
});
const proto = grpc.loadPackageDefinition(definition) as unknown as { ProxyService: grpc.ServiceClientConstructor };

export async function startKonnectivityServer(socketPath: string, mode: TunnelMode = { kind: 'forward' }): Promise<KonnectivityServer> {
  const server = new grpc.Server();
  const ended: Array<{ promise: Promise<void>; resolve: () => void }> = [];
  const endedSlot = (n: number) => {
    while (ended.length <= n) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      ended.push({ promise, resolve });
    }
    return ended[n];
  };
  let nextConnectID = 1;
  const state: KonnectivityServer = {
    mode,
    streams: [],
    streamEnded: (n) => endedSlot(n).promise,
    close: () => new Promise((resolve) => server.tryShutdown(() => resolve())),
  };
  server.addService(proto.ProxyService.service, {
    Proxy(call: grpc.ServerDuplexStream<WirePacket, WirePacket>) {
      const index = state.streams.push([]) - 1;
      const m = state.mode;
      const conns = new Map<string, net.Socket>();
      const send = (p: Partial<WirePacket> & { type: string }) => {
        if (!call.writableEnded && !call.destroyed) call.write(p as WirePacket);
      };
      call.on('error', () => undefined);
      call.on('end', () => {
        for (const s of conns.values()) s.destroy();
        endedSlot(index).resolve();
        call.end();
      });
      call.on('data', (p: WirePacket) => {
        state.streams[index].push(p);
        if (p.type === 'DIAL_REQ' && p.dialRequest) {
          const random = p.dialRequest.random;
          if (m.kind === 'dialError') {
            send({ type: 'DIAL_RSP', dialResponse: { error: m.error, connectID: '0', random } });
            call.end();
          } else if (m.kind === 'dialClose') {
            send({ type: 'DIAL_CLS', closeDial: { random } });
          } else if (m.kind === 'echo') {
            send({ type: 'DIAL_RSP', dialResponse: { error: '', connectID: String(m.connectID), random } });
          } else if (m.kind === 'forward') {
            const address = p.dialRequest.address;
            const sep = address.lastIndexOf(':');
            const id = String(nextConnectID++);
            const socket = net.connect({ host: address.slice(0, sep).replace(/^\[|\]$/g, ''), port: Number(address.slice(sep + 1)) });
            socket.setNoDelay(true);
            socket.once('connect', () => {
              conns.set(id, socket);
              send({ type: 'DIAL_RSP', dialResponse: { error: '', connectID: id, random } });
            });
            socket.once('error', (err: NodeJS.ErrnoException) => {
              if (!conns.has(id)) send({ type: 'DIAL_RSP', dialResponse: { error: `dial tcp ${address}: ${err.code}`, connectID: '0', random } });
            });
            socket.on('data', (data: Buffer) => {
              if (!call.write({ type: 'DATA', data: { connectID: id, error: '', data } } as WirePacket)) {
                socket.pause();
                call.once('drain', () => socket.resume());
              }
            });
            socket.on('close', () => {
              if (conns.delete(id)) send({ type: 'CLOSE_RSP', closeResponse: { error: '', connectID: id } });
            });
          }
        } else if (p.type === 'DATA' && p.data) {
          if (m.kind === 'echo') send({ type: 'DATA', data: { connectID: p.data.connectID, error: '', data: p.data.data } });
          else conns.get(p.data.connectID)?.write(p.data.data);
        } else if (p.type === 'CLOSE_REQ' && p.closeRequest) {
          const id = p.closeRequest.connectID;
          const socket = conns.get(id);
          conns.delete(id);
          socket?.destroy();
          send({ type: 'CLOSE_RSP', closeResponse: { error: '', connectID: id } });
        }
      });
    },
  });
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`unix:${socketPath}`, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())),
  );
  return state;
}
