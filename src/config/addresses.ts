/**
 * The forms a node's listen addresses are written in, as the node's own files and flags write them and
 * as DAEMON_GRPC_ADDRESS and CHAINVISOR_RPC_ADDRESS accept them:
 *   gRPC: `host:port`, `tcp://host:port` (`grpc://` and `http://` tolerated, as the gRPC client always did);
 *   RPC:  `tcp://host:port`, `http://host:port`, `host:port`, `unix:///absolute/path`.
 * Hosts are names, IPv4 or bracketed IPv6 (`[::1]:9090`); an empty host means all interfaces, as in Go.
 */
import type { Parsed } from './values.js';

export interface HostPort {
  host: string;
  port: number;
}

export type RpcEndpoint = ({ kind: 'tcp' } & HostPort) | { kind: 'unix'; path: string };

const hostPortPattern = /^(?:\[([0-9a-fA-F:.]+(?:%[\w.-]+)?)\]|([A-Za-z0-9._-]*)):(\d{1,5})$/;

/** `host:port` or `[v6]:port`; undefined for anything else. */
export function splitHostPort(text: string): HostPort | undefined {
  const match = hostPortPattern.exec(text);
  if (match === null) return undefined;
  const port = Number(match[3]);
  if (port > 65535) return undefined;
  return { host: match[1] ?? match[2] ?? '', port };
}

/** A gRPC address without its scheme; undefined when it is not one. */
export function grpcHostPort(text: string): HostPort | undefined {
  return splitHostPort(text.trim().replace(/^(grpc|http|tcp):\/\//, ''));
}

/** An RPC address as something to connect to; undefined when it is not one. */
export function rpcEndpoint(text: string): RpcEndpoint | undefined {
  const trimmed = text.trim();
  if (trimmed.startsWith('unix://')) {
    const socket = trimmed.slice('unix://'.length);
    return socket.startsWith('/') && !/[\u0000-\u001f]/.test(socket) ? { kind: 'unix', path: socket } : undefined;
  }
  const hostPort = splitHostPort(trimmed.replace(/^(tcp|http):\/\//, '').replace(/\/$/, ''));
  return hostPort === undefined ? undefined : { kind: 'tcp', ...hostPort };
}

export function parseGrpcAddress(text: string): Parsed<string> {
  const hostPort = grpcHostPort(text);
  if (hostPort === undefined || hostPort.port === 0) {
    return { ok: false, message: 'expected the node\'s gRPC address as host:port or tcp://host:port, for example "localhost:9090"' };
  }
  return { ok: true, value: text.trim() };
}

/** Empty is accepted: the address is then where the node says it listens. */
export function parseRpcAddress(text: string): Parsed<string> {
  if (text.trim() === '') return { ok: true, value: '' };
  const endpoint = rpcEndpoint(text);
  if (endpoint === undefined || (endpoint.kind === 'tcp' && endpoint.port === 0)) {
    return {
      ok: false,
      message: 'expected the node\'s CometBFT RPC as tcp://host:port, http://host:port, host:port or unix:///path, for example "tcp://127.0.0.1:26657"',
    };
  }
  return { ok: true, value: text.trim() };
}
