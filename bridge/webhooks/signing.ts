import { createHmac, randomBytes } from 'crypto'

/** Signing secrets and the two signature headers of a delivery, every secret still valid signing: docs/bridge/webhooks.md#delivery */

const PREFIX = 'whsec_'

/** A new secret: `whsec_` + 32 random bytes in base64 (Standard Webhooks' format, 24+ bytes). */
export function generateSecret(): string {
    return PREFIX + randomBytes(32).toString('base64')
}

/** X-Bridge-Signature: hex HMAC-SHA256 of the raw body, keyed with the whole `whsec_…` string (UTF-8). */
export function bridgeSignature(secret: string, body: Buffer): string {
    return createHmac('sha256', secret).update(body).digest('hex')
}

/** Standard Webhooks' `v1,` signature of "id.timestamp.body", keyed with the base64-decoded part after `whsec_`, as its verifiers expect. */
export function standardSignature(secret: string, id: string, timestampSeconds: number, body: Buffer): string {
    const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64')
    const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.`).update(body).digest('base64')
    return `v1,${mac}`
}

export interface SignInput {
    event: string
    eventId: string
    deliveryId: string
    subscriptionId: string
    body: Buffer
    /** Newest first; at least one. */
    secrets: string[]
    at: Date
}

/** X-Bridge-Signature from the newest secret only (receivers may compare just it); every older secret still valid signs too. */
export function deliveryHeaders(input: SignInput): Record<string, string> {
    const [current, ...older] = input.secrets
    const seconds = Math.floor(input.at.getTime() / 1000)
    const headers: Record<string, string> = {
        'Content-Type': 'application/json',
        'User-Agent': 'bridge-webhooks/1',
        'X-Bridge-Event': input.event,
        'X-Bridge-Signature': bridgeSignature(current, input.body),
        'X-Bridge-Timestamp': input.at.toISOString(),
        'X-Bridge-Delivery': input.deliveryId,
        'X-Bridge-Subscription': input.subscriptionId,
        'webhook-id': input.eventId,
        'webhook-timestamp': String(seconds),
        'webhook-signature': input.secrets.map((s) => standardSignature(s, input.eventId, seconds, input.body)).join(' '),
    }
    if (older.length > 0) headers['X-Bridge-Signature-Previous'] = older.map((s) => bridgeSignature(s, input.body)).join(' ')
    return headers
}
