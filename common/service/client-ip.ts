import { Request } from 'express'
import { IncomingMessage } from 'http'

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
