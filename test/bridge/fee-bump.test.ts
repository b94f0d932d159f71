import { expect } from 'chai'
import * as fs from 'fs'
import { Pool } from 'pg'
import { Hash, parseGwei, parseTransaction, parseUnits, toHex } from 'viem'
import { waitFor } from '../../common/processes'
import { createTestDatabase } from '../support/postgres'
import {
    account, BroadcastGate, BridgeChains, BridgeProcess, bridgeEnv, createSwap, fundVaults, giveTokens, send, startBridge, startBridgeChains, tempDir,
    transferAmounts, vaultOf, waitForStatus,
} from './support'

/**
 * The durable sender's fee bump (docs/sending.md), with the real bridge process and anvils: a
 * payout signed at the fees of the moment, then held back while the target chain's base fee is
 * raised far above its fee cap and kept there. The stored bytes can never be mined; the sender
 * replaces them once at the same nonce with a higher fee, and exactly one payout lands, counted
 * in the token's Transfer logs.
 */
describe('bridge: a payout priced out by the base fee is replaced at its nonce, once', function () {
    let w: BridgeChains
    let bridge: BridgeProcess
    let gate: BroadcastGate
    let pool: Pool
    let dir: string
    let baseFeeTicker: NodeJS.Timeout | undefined

    /** Far above the payout's fee cap (the fees of a zero base fee), far below BRIDGE_MAX_FEE_GWEI's default. */
    const HIGH_BASE_FEE = parseGwei('50')

    before(async function () {
        const databaseUrl = await createTestDatabase('bridge_fee_bump')
        w = await startBridgeChains()
        gate = new BroadcastGate(w.chains.ETHEREUM.url)
        await gate.start()
        dir = tempDir()
        bridge = await startBridge({ ...bridgeEnv(w, databaseUrl, dir), ETHEREUM_RPC_URL: gate.url })
        await fundVaults(w, bridge)
        pool = new Pool({ connectionString: databaseUrl, max: 2 })
    })

    after(async function () {
        clearInterval(baseFeeTicker)
        await pool?.end()
        await bridge?.stop()
        await gate?.stop()
        await w?.stop()
        if (dir) fs.rmSync(dir, { recursive: true, force: true })
    })

    it('held until the base fee passed its fee cap: one replacement at the same nonce lands, the original is dead, one transfer', async function () {
        const native = w.chains.NATIVECHAIN
        const eth = w.chains.ETHEREUM
        const receiver = account(27).address
        const ethVault = await vaultOf(bridge, 'ETHEREUM')
        await giveTokens(native, 'STABLE', account(6).address, parseUnits('12', 6))
        const swap = await createSwap(bridge, {
            source_chain: 'NATIVECHAIN', source_token: 'STABLE', target_chain: 'ETHEREUM', target_token: 'USDT',
            source_token_amount: 12, target_wallet: receiver,
        })
        gate.filter = async (raw) => (await pool.query(`SELECT 1 FROM bridge_tx WHERE raw = $1 AND swap_id = $2 AND purpose = 'payout'`, [raw, swap.id])).rows.length > 0
        gate.blocked = true
        await send(native, 6, swap.deposit_address, parseUnits('12', 6), native.tokens.STABLE)
        const original = await waitFor('the payout stored and held back', async () => {
            const { rows } = await pool.query(`SELECT * FROM bridge_tx WHERE swap_id = $1 AND purpose = 'payout'`, [swap.id])
            return rows.length === 1 && gate.refused.includes(rows[0].raw) ? rows[0] : undefined
        }, 120_000, 100)
        const signed = parseTransaction(original.raw)
        expect(signed.maxFeePerGas! < HIGH_BASE_FEE).to.equal(true)

        // Every block from now on has the high base fee (an empty block would otherwise lower it by an eighth).
        const setBaseFee = () => eth.client.request({ method: 'anvil_setNextBlockBaseFeePerGas' as any, params: [toHex(HIGH_BASE_FEE)] as any }).catch(() => undefined)
        await setBaseFee()
        baseFeeTicker = setInterval(setBaseFee, 200)
        await waitFor('a block with the high base fee', async () => (await eth.client.getBlock({ blockTag: 'latest' })).baseFeePerGas === HIGH_BASE_FEE, 30_000, 200)
        // The node now gets the original's bytes and refuses them (under the base fee): they are no use as they are.
        gate.blocked = false

        const done = await waitForStatus(bridge, swap.id, ['completed'], 180_000)
        const { rows } = await pool.query(`SELECT id::text, tx_hash, raw, nonce::text, status, replaces::text FROM bridge_tx WHERE swap_id = $1 AND purpose = 'payout' ORDER BY attempt`, [swap.id])
        // Replaced once: the original and one replacement, at the original's nonce, linked to it.
        expect(rows).to.have.length(2)
        const [first, replacement] = rows
        expect(first.tx_hash).to.equal(original.tx_hash)
        expect(replacement.replaces).to.equal(first.id)
        expect(replacement.nonce).to.equal(first.nonce)
        const bumped = parseTransaction(replacement.raw)
        expect(bumped.maxFeePerGas! >= HIGH_BASE_FEE).to.equal(true)
        expect(bumped.maxPriorityFeePerGas! > signed.maxPriorityFeePerGas!).to.equal(true)
        expect(done.payout_tx_hash).to.equal(replacement.tx_hash)

        // On chain: the replacement at the nonce, the original nowhere, one transfer.
        const mined = await eth.client.getTransaction({ hash: replacement.tx_hash as Hash })
        expect(mined.nonce).to.equal(Number(first.nonce))
        await eth.client.getTransactionReceipt({ hash: first.tx_hash as Hash }).then(() => expect.fail('the original must not have landed'), () => undefined)
        const locked = BigInt((await pool.query(`SELECT locked_target_amount::text FROM bridge_swap WHERE id = $1`, [swap.id])).rows[0].locked_target_amount)
        expect(await transferAmounts(eth, eth.tokens.USDT, ethVault, receiver)).to.deep.equal([locked])
        // The original is followed to its end by the chain's final state: its nonce used by our replacement.
        await waitFor('the original to be noted dead', async () =>
            (await pool.query(`SELECT status FROM bridge_tx WHERE id = $1`, [first.id])).rows[0].status === 'dead', 60_000, 500)
        expect(await transferAmounts(eth, eth.tokens.USDT, ethVault, receiver)).to.deep.equal([locked])
    })
})
