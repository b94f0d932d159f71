import { Pool } from 'pg'
import { formatUnits } from 'viem'
import { Logger } from '../../../common/logger'
import { Mail, Mailer } from '../mail'
import { AlertTransfer } from './make'
import { unsubscribeLink } from './unsubscribe'

/** Mailing the alert outbox: docs/explorer-api.md#watchlist-alerts */

const SENDS_PER_PASS = 20
/** Attempts of one alert before it is given up (`failed`); between them 1, 2, 4, 8 minutes. */
export const MAX_ATTEMPTS = 5

interface Claimed {
    id: string
    address: string
    block_number: number
    transfers: AlertTransfer[]
    attempts: number
    email: string
    name: string | null
    account_id: string
}

/**
 * Sends the alerts that are due. Each is leased before it is sent (its next attempt moved ahead
 * in the same statement that claims it, SKIP LOCKED), so replicas never send one twice unless
 * a process dies between the mail and its `sent` mark: at least once, as the webhooks. Alerts of
 * an entry since removed or with mail turned off are dropped, not sent.
 */
export async function sendDueAlerts(pool: Pool, mailer: Mailer, publicUrl: string, secret: string, log: Logger): Promise<number> {
    await pool.query(
        `DELETE FROM explorer_alert a WHERE a.state = 'pending'
         AND NOT EXISTS (SELECT 1 FROM explorer_watchlist w WHERE w.account_id = a.account_id AND w.address = a.address AND w.notify_email)`
    )
    const { rows } = await pool.query<Claimed>(
        `UPDATE explorer_alert a SET attempts = a.attempts + 1, next_attempt_at = now() + make_interval(mins => power(2, a.attempts)::int)
         FROM explorer_account acc, explorer_watchlist w
         WHERE a.id IN (SELECT id FROM explorer_alert WHERE state = 'pending' AND next_attempt_at <= now() ORDER BY id LIMIT ${SENDS_PER_PASS} FOR UPDATE SKIP LOCKED)
           AND acc.id = a.account_id AND acc.email_verified_at IS NOT NULL AND w.account_id = a.account_id AND w.address = a.address
         RETURNING a.id, a.account_id, a.address, a.block_number, a.transfers, a.attempts, acc.email, w.name`
    )
    let sent = 0
    for (const alert of rows) {
        try {
            await mailer.send(alertMail(alert, unsubscribeLink(publicUrl, secret, alert.account_id, alert.address)))
            await pool.query(`UPDATE explorer_alert SET state = 'sent', sent_at = now() WHERE id = $1`, [alert.id])
            sent++
        } catch (err) {
            const last = alert.attempts >= MAX_ATTEMPTS
            if (last) await pool.query(`UPDATE explorer_alert SET state = 'failed' WHERE id = $1`, [alert.id])
            log.warn({ err, alert: alert.id, attempts: alert.attempts, givenUp: last }, 'watchlist alert could not be mailed')
        }
    }
    return sent
}

// ASCII only: the subject then needs no encoded words.
const short = (address: string) => `${address.slice(0, 8)}...${address.slice(-6)}`

function amount(t: AlertTransfer): string {
    if (t.kind === 'native') return `${formatUnits(BigInt(t.value ?? '0'), 18)} NATIVE`
    const name = t.symbol ?? `token ${t.token}`
    if (t.kind === 'ERC-721') return `${name} #${t.token_id}`
    if (t.kind === 'ERC-1155') return `${t.value} of ${name} #${t.token_id}`
    return t.decimals === null ? `${t.value} base units of ${name}` : `${formatUnits(BigInt(t.value ?? '0'), t.decimals)} ${name}`
}

/** Plain text only: the entry's name is the user's own text and is never put in HTML or the subject. */
export function alertMail(alert: Pick<Claimed, 'address' | 'block_number' | 'transfers' | 'email' | 'name'>, unsubscribe: string): Mail {
    const lines = alert.transfers.map((t) => t.direction === 'incoming'
        ? `- received ${amount(t)} from ${t.counterparty} (transaction ${t.tx_hash})`
        : `- sent ${amount(t)} to ${t.counterparty} (transaction ${t.tx_hash})`)
    return {
        to: alert.email,
        subject: `Watchlist: activity of ${short(alert.address)} in block ${alert.block_number}`,
        text: [
            `Activity of ${alert.address}${alert.name ? ` (${alert.name})` : ''} on your watchlist, in block ${alert.block_number}:`,
            '',
            ...lines,
            '',
            `Stop these mails for this address: ${unsubscribe}`,
            'The other addresses of your watchlist are not affected.',
        ].join('\n'),
        purpose: 'watchlist_alert',
        // RFC 8058: mail clients offer a one-click unsubscribe, which POSTs to the link.
        headers: { 'List-Unsubscribe': `<${unsubscribe}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
    }
}
