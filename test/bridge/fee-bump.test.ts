import { expect } from 'chai'
import { Pool } from 'pg'
import { Hash, parseGwei, parseTransaction, toHex } from 'viem'
import { waitFor } from '../../common/processes'
import {
    account, BridgeChains, BridgeProcess, BroadcastGate, GatedBridge, startGatedBridge, swapWithHeldPayout, transferAmounts, txRows, vaultOf,
    waitForStatus,
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
    let started: GatedBridge
    let baseFeeTicker: NodeJS.Timeout | undefined

    /** Far above the payout's fee cap (the fees of a zero base fee), far below BRIDGE_MAX_FEE_GWEI's default. */
    const HIGH_BASE_FEE = parseGwei('50')

    before(async function () {
        started = await startGatedBridge('bridge_fee_bump')
        ;({ w, bridge, gate, pool } = started)
    })

    after(async function () {
        clearInterval(baseFeeTicker)
        await started?.stop()
    })

    it('held until the base fee passed its fee cap: one replacement at the same nonce lands, the original is dead, one transfer', async function () {
        const eth = w.chains.ETHEREUM
        const receiver = account(27).address
        const ethVault = await vaultOf(bridge, 'ETHEREUM')
        const { swap, payout: original } = await swapWithHeldPayout(w, bridge, pool, gate, receiver)
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
        const rows = await txRows(pool, swap.id, 'payout')
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
