// The client address for brute-force protection and logs: the TCP peer, or - behind trusted
// proxies - the right-most X-Forwarded-For address that no trusted proxy added.
//
// Each proxy APPENDS the address it received the request from, so the list reads
// `client-written..., added by proxy 1, ..., added by the last proxy` and the TCP peer is the last
// proxy itself. Everything left of what the first trusted proxy wrote is the client's own text,
// so the first entry can never be trusted: a client could rotate it to escape the failed-login
// limit, or write a victim's address to lock the victim out. Walking from the right and stopping
// at the first hop that is not a trusted proxy gives the address the outermost trusted proxy saw.
import { BlockList, isIP } from 'node:net';
import type { ProxyTrust } from '../config.js';

/** `true` is one hop (what TRUST_PROXY=true always meant: one proxy in front); `false`: no proxy (TRUST_PROXY as config.ts reads it). */
export type TrustProxySetting = boolean | ProxyTrust;

/** The canonical form of an address as proxies and sockets write it, or undefined if it is not one. */
function normalizeAddress(text: string): string | undefined {
  let address = text.trim();
  // `[::1]:443` and `203.0.113.7:51234`: some proxies append the port.
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address);
  if (bracketed?.[1]) address = bracketed[1];
  else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(address)) address = address.slice(0, address.lastIndexOf(':'));
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) address = mapped[1];
  return isIP(address) ? address.toLowerCase() : undefined;
}

export type ProxyMatcher = (address: string | undefined, hop: number) => boolean;

/** Whether the hop `hop` away (0: the TCP peer) with `address` is one of our proxies. */
export function proxyMatcher(setting: TrustProxySetting): ProxyMatcher {
  if (setting === false) return () => false;
  const { hops, ranges } = setting === true ? { hops: 1, ranges: [] } : setting;
  const list = new BlockList();
  for (const range of ranges) {
    const [address = '', prefix] = range.split('/');
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return (address, hop) => {
    if (hop < hops) return true;
    if (!address || !ranges.length) return false;
    return list.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
  };
}

/** The right-most address in `[...X-Forwarded-For, peer]` that is not a trusted proxy (else the left-most). */
export function clientAddressOf(forwardedFor: string | null | undefined, peer: string | undefined, isProxy: ProxyMatcher): string {
  const peerAddress = peer ? normalizeAddress(peer) : undefined;
  if (!isProxy(peerAddress, 0)) return peerAddress ?? 'unknown';
  const chain = (forwardedFor ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  let client = peerAddress ?? 'unknown';
  for (let i = chain.length - 1, hop = 1; i >= 0; i--, hop++) {
    const written = chain[i] ?? '';
    const address = normalizeAddress(written);
    // What a trusted proxy wrote but is not an address: keep it (bounded) so it is visible in logs.
    client = address ?? written.slice(0, 64);
    if (!isProxy(address, hop)) break;
  }
  return client;
}
