import { promises as dns } from 'dns'
import type { RequestOptions } from 'https'
import { isIP } from 'net'
import { withTimeout } from './with-timeout'

/**
 * Where an outgoing request to a URL someone else chose may go: public addresses only, checked
 * before every attempt and connected to as checked. One rule for the bridge's webhooks
 * (docs/bridge/webhooks.md#url-safety) and the indexer's NFT metadata fetcher (docs/nft-metadata.md).
 */

export type RefusalKind = 'invalid_url' | 'blocked_address' | 'dns'

export class TargetRefused extends Error {
    constructor(readonly kind: RefusalKind, message: string) {
        super(message)
    }
}

export interface ResolvedAddress {
    address: string
    family: 4 | 6
}

/** A resolver: every address of a host name. Injectable so a test can play a rebinding DNS server. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>

export const systemResolver: Resolver = async (hostname) =>
    (await dns.lookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }))

const MAX_URL_LENGTH = 2048

/** Parses a subscription URL; refuses other schemes, embedded credentials and over-long URLs. */
export function parseTargetUrl(raw: string): URL {
    if (raw.length > MAX_URL_LENGTH) throw new TargetRefused('invalid_url', `must be at most ${MAX_URL_LENGTH} characters`)
    let url: URL
    try {
        url = new URL(raw)
    } catch {
        throw new TargetRefused('invalid_url', 'must be an absolute http:// or https:// URL')
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TargetRefused('invalid_url', `scheme ${url.protocol.replace(/:$/, '')} is not allowed: use http or https`)
    // Credentials in the URL would be shown by every listing; the signature is the authentication.
    if (url.username || url.password) throw new TargetRefused('invalid_url', 'must not carry credentials (user:password@)')
    if (!url.hostname) throw new TargetRefused('invalid_url', 'must name a host')
    url.hash = ''
    return url
}

interface Range {
    prefix: number[]
    bits: number
    name: string
}

const range = (prefix: number[], bits: number, name: string): Range => ({ prefix, bits, name })

/** IPv4 blocks that are not publicly routable (IANA special-purpose registry). */
const IPV4_BLOCKED: Range[] = [
    range([0], 8, 'unspecified ("this network")'),
    range([10], 8, 'private'),
    range([100, 64], 10, 'shared (carrier-grade NAT)'),
    range([127], 8, 'loopback'),
    range([169, 254], 16, 'link-local'),
    range([172, 16], 12, 'private'),
    range([192, 0, 0], 24, 'IETF protocol assignment'),
    range([192, 0, 2], 24, 'documentation'),
    range([192, 88, 99], 24, '6to4 relay'),
    range([192, 168], 16, 'private'),
    range([198, 18], 15, 'benchmarking'),
    range([198, 51, 100], 24, 'documentation'),
    range([203, 0, 113], 24, 'documentation'),
    range([224], 4, 'multicast'),
    range([240], 4, 'reserved'),
]

/** IPv6 blocks inside global unicast (2000::/3) that are still not public; everything outside 2000::/3 is refused. */
const IPV6_BLOCKED: Range[] = [
    range([0x20, 0x01, 0x00], 23, 'IETF protocol assignment'),
    range([0x20, 0x01, 0x0d, 0xb8], 32, 'documentation'),
    range([0x20, 0x02], 16, '6to4'),
]

function inRange(bytes: number[], r: Range): boolean {
    for (let bit = 0; bit < r.bits; bit++) {
        const i = bit >> 3
        const mask = 0x80 >> (bit & 7)
        if ((bytes[i] & mask) !== ((r.prefix[i] ?? 0) & mask)) return false
    }
    return true
}

function ipv4Bytes(ip: string): number[] | undefined {
    const parts = ip.split('.')
    if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return undefined
    return parts.map(Number)
}

function ipv6Bytes(ip: string): number[] | undefined {
    const text = ip.replace(/%.*$/, '')
    const halves = text.split('::')
    if (halves.length > 2) return undefined
    const groups = (part: string): number[] | undefined => {
        if (part === '') return []
        const out: number[] = []
        const items = part.split(':')
        for (const [i, item] of items.entries()) {
            if (i === items.length - 1 && item.includes('.')) {
                const v4 = ipv4Bytes(item)
                if (!v4) return undefined
                out.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3])
            } else {
                if (!/^[0-9a-f]{1,4}$/i.test(item)) return undefined
                out.push(parseInt(item, 16))
            }
        }
        return out
    }
    const head = groups(halves[0])
    const tail = halves.length === 2 ? groups(halves[1]) : []
    if (!head || !tail) return undefined
    const missing = 8 - head.length - tail.length
    if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined
    const all = [...head, ...Array(missing).fill(0), ...tail]
    return all.flatMap((g) => [g >> 8, g & 0xff])
}

/** Why an address is not public (e.g. "loopback"), or undefined for a public one. */
export function nonPublicRange(ip: string): string | undefined {
    const family = isIP(ip.replace(/%.*$/, ''))
    if (family === 4) {
        const bytes = ipv4Bytes(ip)!
        return IPV4_BLOCKED.find((r) => inRange(bytes, r))?.name
    }
    if (family !== 6) return 'not an IP address'
    const bytes = ipv6Bytes(ip)
    if (!bytes) return 'not an IP address'
    const v4 = bytes.slice(12).join('.')
    // IPv4-mapped (::ffff:a.b.c.d) reaches the IPv4 address itself; NAT64 (64:ff9b::/96) reaches it through a gateway.
    if (inRange(bytes, range([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff], 96, ''))) return nonPublicRange(v4)
    if (inRange(bytes, range([0, 0x64, 0xff, 0x9b], 96, ''))) return nonPublicRange(v4)
    if (bytes.every((b) => b === 0)) return 'unspecified'
    if (bytes.slice(0, 15).every((b) => b === 0) && bytes[15] === 1) return 'loopback'
    if (inRange(bytes, range([0xfc], 7, ''))) return 'unique local (private)'
    if (inRange(bytes, range([0xfe, 0x80], 10, ''))) return 'link-local'
    if (inRange(bytes, range([0xfe, 0xc0], 10, ''))) return 'site-local'
    if (inRange(bytes, range([0xff], 8, ''))) return 'multicast'
    if (!inRange(bytes, range([0x20], 3, ''))) return 'not global unicast'
    return IPV6_BLOCKED.find((r) => inRange(bytes, r))?.name
}

/** The URL's host without IPv6 brackets. */
export function hostOf(url: URL): string {
    return url.hostname.replace(/^\[(.*)\]$/, '$1')
}

/**
 * Resolves the URL's host and checks every address it resolves to (one private answer refuses
 * the whole name: which answer a client would use is not ours to predict). Returns the address
 * to connect to, never resolving the name again, so a rebinding DNS server cannot swap the target.
 * An IP literal is checked as it is.
 */
export async function resolveTarget(url: URL, options: { allowPrivate: boolean; resolver?: Resolver; timeoutMs?: number }): Promise<ResolvedAddress> {
    const host = hostOf(url)
    let addresses: ResolvedAddress[]
    const literal = isIP(host)
    if (literal) {
        addresses = [{ address: host, family: literal === 6 ? 6 : 4 }]
    } else {
        const resolver = options.resolver ?? systemResolver
        try {
            addresses = await withTimeout(resolver(host), options.timeoutMs ?? 5_000, 'timed out')
        } catch (err) {
            const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message
            throw new TargetRefused('dns', `${host} does not resolve (${code})`)
        }
        if (addresses.length === 0) throw new TargetRefused('dns', `${host} does not resolve`)
    }
    if (!options.allowPrivate) {
        for (const a of addresses) {
            const why = nonPublicRange(a.address)
            if (why) {
                const where = literal ? a.address : `${host} resolves to ${a.address}, which`
                throw new TargetRefused('blocked_address', `${where} is not a public address (${why}); only public destinations are allowed`)
            }
        }
    }
    return addresses[0]
}

/**
 * Request options that connect to the checked address itself, never resolving the name again: the
 * URL's name travels only in Host and, for https, in SNI and the certificate check.
 */
export function connectOptions(url: URL, address: ResolvedAddress): RequestOptions {
    const secure = url.protocol === 'https:'
    const host = hostOf(url)
    return {
        host: address.address,
        family: address.family,
        port: url.port ? Number(url.port) : secure ? 443 : 80,
        path: `${url.pathname}${url.search}`,
        ...(secure && !isIP(host) ? { servername: host } : {}),
    }
}

const TLS_CODES = /^(ERR_TLS_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|ERR_SSL_|EPROTO)/

/** The class of a failed connection, as recorded for an attempt: `tls: …`, `connect: …`, `protocol: …` or `network: …`. */
export function networkError(err: NodeJS.ErrnoException): string {
    const code = err.code ?? ''
    if (TLS_CODES.test(code)) return `tls: ${code}`
    if (['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ETIMEDOUT', 'EADDRNOTAVAIL'].includes(code)) return `connect: ${code}`
    if (code === 'HPE_INVALID_CONSTANT' || code.startsWith('HPE_')) return `protocol: invalid HTTP response (${code})`
    return `network: ${code || err.message}`
}
