import { Request } from 'express'
import { IncomingMessage } from 'http'
import { isIPv6 } from 'net'

/**
 * The caller's IP, the key of per-IP rate limits. X-Forwarded-For counts only behind a proxy the
 * operator declared (the app's `trust proxy`, set from TRUST_PROXY), else any client could pick its
 * own key; Express does the parsing. IPv4-mapped IPv6 is unwrapped so one client has one key.
 */
export function clientIp(req: Request): string {
    const ip = req.ip ?? req.socket.remoteAddress ?? 'unknown'
    return ip.startsWith('::ffff:') ? ip.slice(7) : ip
}

/**
 * The same rule for a request Express never sees (a WebSocket upgrade): the address `trustProxy`
 * hops back along X-Forwarded-For from the peer, as Express reads it with `trust proxy` set to a hop count.
 */
export function upgradeClientIp(req: IncomingMessage, trustProxy: number): string {
    const forwarded = String(req.headers['x-forwarded-for'] ?? '').split(',').map((s) => s.trim()).filter(Boolean)
    const chain = [req.socket.remoteAddress ?? 'unknown', ...forwarded.reverse()]
    const ip = chain[Math.min(trustProxy, chain.length - 1)]
    return ip.startsWith('::ffff:') ? ip.slice(7) : ip
}

/**
 * The key of per-client limits: an IPv4 address, or the /64 network of an IPv6 address. One
 * subscriber is given a whole /64 (often more), so keyed per IPv6 address an attacker would hold
 * 2^64 keys and no per-IP limit would bind.
 */
export function clientKey(req: Request): string {
    return limitKeyOf(clientIp(req))
}

/** clientKey for a WebSocket upgrade. */
export function upgradeClientKey(req: IncomingMessage, trustProxy: number): string {
    return limitKeyOf(upgradeClientIp(req, trustProxy))
}

export function limitKeyOf(ip: string): string {
    const address = ip.split('%')[0]
    if (!isIPv6(address)) return ip
    if (/^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(address)) return address.slice(7)
    const [head, tail = ''] = address.split('::')
    const left = head ? head.split(':') : []
    const right = address.includes('::') && tail ? tail.split(':') : []
    // An embedded IPv4 tail (::1.2.3.4) sits in the low 64 bits, which the key drops.
    const groups = address.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left
    return `${groups.slice(0, 4).map((g) => parseInt(g, 16).toString(16)).join(':')}::/64`
}
