import { Request } from 'express'

/**
 * The caller's IP for rate limits and logs. X-Forwarded-For is believed only behind a proxy the
 * operator declared (TRUST_PROXY), else any client could pick its own rate-limit key. Express's
 * `trust proxy` setting does the parsing; this only normalises IPv4-mapped IPv6.
 */
export function clientIp(req: Request): string {
    const ip = req.ip ?? req.socket.remoteAddress ?? 'unknown'
    return ip.startsWith('::ffff:') ? ip.slice(7) : ip
}
