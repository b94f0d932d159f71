import { Request } from 'express'

/**
 * The caller's IP, the key of per-IP rate limits. X-Forwarded-For counts only behind a proxy the
 * operator declared (the app's `trust proxy`, set from TRUST_PROXY), else any client could pick its
 * own key; Express does the parsing. IPv4-mapped IPv6 is unwrapped so one client has one key.
 */
export function clientIp(req: Request): string {
    const ip = req.ip ?? req.socket.remoteAddress ?? 'unknown'
    return ip.startsWith('::ffff:') ? ip.slice(7) : ip
}
