import { expect } from 'chai'
import { Pool } from 'pg'
import { applyMigrations } from '../../db/migrate'
import { Asset } from '../../bridge/config'
import { EngineContext } from '../../bridge/engine/context'
import { vaultCapacity } from '../../bridge/engine/vault'
import { tradesInFlight } from '../../bridge/store/reservations'
import { createTestDatabase } from '../support/postgres'

/**
 * What a vault has promised to pool trades in flight, read from bridge_tx as the durable sender
 * stores it: a fee-bump replacement is a second live row at its original's nonce (same swap,
 * purpose, asset and amount, `replaces` set) until one of the two lands, and only one can.
 */
describe('bridge: vault reservations of pool trades in flight', function () {
    let pool: Pool
    const VAULT = '0x00000000000000000000000000000000000000aa'
    const BALANCE = 1_000n
    const usdt = { chain: 'ETHEREUM', symbol: 'USDT' } as Asset
    // Only what vaultCapacity asks of the context: the database and the vault's balance.
    const ctx = () => ({
        pool,
        adapter: () => ({ deriveAddress: async () => VAULT, balance: async () => BALANCE }),
    }) as unknown as EngineContext

    before(async function () {
        const url = await createTestDatabase('bridge_vault_reservations')
        await applyMigrations(url)
        pool = new Pool({ connectionString: url, max: 2 })
    })

    after(async function () {
        await pool?.end()
    })

    let depositIndex = 0
    async function swap(): Promise<string> {
        const { rows } = await pool.query(
            `INSERT INTO bridge_swap (id, status, source_chain, source_token, target_chain, target_token, source_amount, target_wallet, route_kind, route,
                fee_bps, deposit_family, deposit_index, deposit_address, watch_from_block, expires_at)
             VALUES (gen_random_uuid(), 'pool_swapping', 'NATIVECHAIN', 'STABLE', 'ETHEREUM', 'ETH', 100, $1, 'pool', '{}', 250, 'evm', $2, $1, 0, now() + interval '1 hour')
             RETURNING id`,
            [VAULT, ++depositIndex]
        )
        return rows[0].id
    }

    async function trade(swapId: string, attempt: number, nonce: number, amount: bigint, status: string, replaces: string | null = null): Promise<string> {
        const { rows } = await pool.query(
            `INSERT INTO bridge_tx (swap_id, purpose, attempt, chain, from_address, to_address, asset, amount, nonce, tx_hash, raw, status, replaces)
             VALUES ($1, 'pool_swap', $2, 'ETHEREUM', $3, $3, 'USDT', $4, $5, $6, '0x', $7, $8) RETURNING id::text`,
            [swapId, attempt, VAULT, amount.toString(), nonce, `0x${(nonce * 10 + attempt).toString(16).padStart(64, '0')}`, status, replaces]
        )
        return rows[0].id
    }

    it('counts a trade and its fee-bump replacement, both live at one nonce, once; trades at other nonces each', async function () {
        const bumped = await swap()
        const original = await trade(bumped, 1, 7, 300n, 'broadcast')
        await trade(bumped, 2, 7, 300n, 'signed', original)
        await trade(await swap(), 1, 8, 200n, 'broadcast')

        const capacity = await vaultCapacity(ctx(), usdt)
        expect(capacity.reserved).to.equal(500n)
        expect(capacity.available).to.equal(BALANCE - 500n)
        // The pool leg's own check (pool.ts) leaves the trading swap out: both of its rows, not one.
        expect(await tradesInFlight(pool, 'ETHEREUM', bumped)).to.deep.equal(new Map([['USDT', 200n]]))
    })
})
