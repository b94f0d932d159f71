import { Pool } from 'pg'
import { LocalAccount } from 'viem'
import { Logger } from '../../common/logger'
import { Idempotency } from '../../common/service/idempotency'
import { Auth } from './auth'
import { PlatformTx, UnsignedTx, WalletTransactions } from './wallet-txs'

/**
 * The platform's idempotency keys (common/service/idempotency.ts; docs/platform-api.md, "Retries
 * and idempotency"): scoped per authenticated user, claimed as soon as a signing route has
 * authenticated its caller, and tied to the platform requests (platform_tx.request_id) the route
 * signs under, so a retry after a crash answers from what was stored instead of signing again.
 */
export function platformIdempotency(pool: Pool, locks: ConstructorParameters<typeof Idempotency>[1], log: Logger): Idempotency {
    return new Idempotency(pool, locks, {
        surface: 'platform',
        log,
        recover: async (requestIds) => {
            // Refused on their first broadcast, they never reached a pool: nothing was sent.
            const { rows } = await pool.query(
                `SELECT tx_hash FROM platform_tx WHERE request_id = ANY($1) AND status <> 'rejected' ORDER BY id`,
                [requestIds]
            )
            if (!rows.length) return undefined
            const hashes = rows.map((r) => r.tx_hash as string)
            return {
                status: 202,
                body: {
                    success: true,
                    pending: true,
                    hash: hashes[hashes.length - 1],
                    hashes,
                    message: 'The request was interrupted after it signed; it is not run again. Its transactions are followed until they land: follow them by their hashes',
                },
            }
        },
    })
}

/** WalletTransactions that note each request on the current idempotency key before its first signature. */
export class IdempotentWalletTransactions extends WalletTransactions {
    idempotency?: Idempotency

    override async send(account: LocalAccount, tx: UnsignedTx, request: string, step: number): Promise<PlatformTx> {
        await this.idempotency?.noteRequest(request)
        return super.send(account, tx, request, step)
    }
}

/**
 * Claims the current request's idempotency key (if its route took one) for the user that
 * wallet-level and user-level authentication of signing routes proved: only an authenticated
 * caller is ever replayed an answer.
 */
export function claimOnAuthentication(auth: Auth, idempotency: Idempotency): void {
    const wallet = auth.wallet.bind(auth)
    const userWallet = auth.userWallet.bind(auth)
    auth.wallet = async (...args: Parameters<Auth['wallet']>) => {
        const proved = await wallet(...args)
        await idempotency.claim(proved.userId)
        return proved
    }
    auth.userWallet = async (...args: Parameters<Auth['userWallet']>) => {
        const proved = await userWallet(...args)
        await idempotency.claim(proved.userId)
        return proved
    }
}
