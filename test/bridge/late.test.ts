import { expect } from 'chai'
import * as fs from 'fs'
import { Address, parseUnits } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { waitFor } from '../../common/processes'
import { createTestDatabase } from '../support/postgres'
import {
    account, api, balanceOf, BridgeChains, BridgeProcess, bridgeEnv, ChainName, createSwap, eventsOf, fundVaults, giveTokens, send,
    startBridge, startBridgeChains, tempDir, transferAmounts, vaultOf, waitForStatus,
} from './support'

/**
 * Deposits that arrive after a swap ended. Swaps here expire 3 seconds after
 * creation; the deposit is sent once the swap is expired, and must be refunded in full (less what
 * the gather costs on a chain with fees) exactly once, or held for an operator when the swap has
 * no refund_address.
 */
describe('bridge: late deposits (after the swap ended)', function () {
    let w: BridgeChains
    let bridge: BridgeProcess
    let dir: string

    before(async function () {
        const databaseUrl = await createTestDatabase('bridge_late')
        w = await startBridgeChains()
        dir = tempDir()
        bridge = await startBridge({ ...bridgeEnv(w, databaseUrl, dir), BRIDGE_DEPOSIT_WINDOW_SECONDS: '3' })
        await fundVaults(w, bridge)
    })

    after(async function () {
        await bridge?.stop()
        await w?.stop()
        if (dir) fs.rmSync(dir, { recursive: true, force: true })
    })

    const fresh = () => privateKeyToAccount(generatePrivateKey()).address

    async function lateDeposits(id: string, state: string): Promise<any[]> {
        return waitFor(`a late deposit of ${id} to be ${state}`, async () => {
            const { body } = await api(bridge, 'GET', `/api/swap/${id}`)
            return body.late_deposits.length && body.late_deposits.every((l: any) => l.status === state) ? body.late_deposits : undefined
        }, 90_000, 250)
    }

    async function expiredSwap(source: [ChainName, string], target: [ChainName, string], amount: string, refund: Address | null) {
        const swap = await createSwap(bridge, {
            source_chain: source[0], source_token: source[1], target_chain: target[0], target_token: target[1],
            source_token_amount: amount, target_wallet: account(9).address, refund_address: refund,
        })
        await waitForStatus(bridge, swap.id, ['expired'], 60_000)
        // The spec: error_message is null unless the swap failed; an expired swap's status says why.
        expect((await api(bridge, 'GET', `/api/swap/${swap.id}/status`)).body.error_message).to.equal(null)
        expect((await api(bridge, 'GET', `/api/swap/${swap.id}`)).body.error_message).to.equal(null)
        return swap
    }

    it('a coin deposit after expiry is refunded in full to refund_address, once', async function () {
        const refund = fresh()
        const swap = await expiredSwap(['NATIVECHAIN', 'NATIVE'], ['ETHEREUM', 'USDT'], '0.5', refund)
        const amount = parseUnits('0.5', 18)
        const hash = await send(w.chains.NATIVECHAIN, 5, swap.deposit_address, amount)
        const [late] = await lateDeposits(swap.id, 'refunded')
        // The native chain charges no fees: the whole deposit goes back.
        expect(late.amount).to.equal('0.5')
        expect(late.tx_hash).to.equal(hash)
        expect(late.refund_amount).to.equal('0.5')
        expect(late.refund_address).to.equal(refund)
        expect(await balanceOf(w.chains.NATIVECHAIN, refund)).to.equal(amount)
        const refundTx = await w.chains.NATIVECHAIN.client.getTransaction({ hash: late.refund_tx_hash })
        expect(refundTx.to?.toLowerCase()).to.equal(refund.toLowerCase())
        expect(refundTx.value).to.equal(amount)
        const events = (await eventsOf(bridge, swap.id)).map((e) => e.event)
        expect(events.filter((e) => e === 'late_deposit_detected')).to.have.length(1)
        expect(events.filter((e) => e === 'late_deposit_refunded')).to.have.length(1)
        // The swap itself stays expired, its window closed.
        expect((await api(bridge, 'GET', `/api/swap/${swap.id}`)).body.status).to.equal('expired')
    })

    it('a token deposit after expiry on a chain with fees is refunded in full by one transfer, and a second late deposit after it too', async function () {
        const chain = w.chains.ETHEREUM
        const usdt = chain.tokens.USDT
        const refund = fresh()
        const swap = await expiredSwap(['ETHEREUM', 'USDT'], ['POLYGON', 'USDT'], '50', refund)
        await giveTokens(chain, 'USDT', account(6).address, parseUnits('120', 6))
        await send(chain, 6, swap.deposit_address, parseUnits('50', 6), usdt)
        await lateDeposits(swap.id, 'refunded')
        await send(chain, 6, swap.deposit_address, parseUnits('70', 6), usdt)
        const lates = await waitFor('the second late deposit refunded', async () => {
            const { body } = await api(bridge, 'GET', `/api/swap/${swap.id}`)
            return body.late_deposits.length === 2 && body.late_deposits.every((l: any) => l.status === 'refunded') ? body.late_deposits : undefined
        }, 90_000, 250)
        expect(lates.map((l: any) => l.refund_amount)).to.deep.equal(['50', '70'])
        const vault = await vaultOf(bridge, 'ETHEREUM')
        expect(await transferAmounts(chain, usdt, vault, refund)).to.deep.equal([parseUnits('50', 6), parseUnits('70', 6)])
        expect(await balanceOf(chain, refund, usdt)).to.equal(parseUnits('120', 6))
        expect(await balanceOf(chain, swap.deposit_address, usdt)).to.equal(0n)
    })

    it('a coin deposit after expiry on a chain with fees comes back less the network fee of gathering it', async function () {
        const chain = w.chains.ETHEREUM
        const refund = fresh()
        const swap = await expiredSwap(['ETHEREUM', 'ETH'], ['POLYGON', 'USDT'], '0.02', refund)
        const amount = parseUnits('0.02', 18)
        await send(chain, 6, swap.deposit_address, amount)
        const [late] = await lateDeposits(swap.id, 'refunded')
        const gatherTx = await chain.client.getTransaction({ hash: late.gather_tx_hash })
        const received = await balanceOf(chain, refund)
        expect(received).to.equal(gatherTx.value)
        expect(parseUnits(late.refund_amount, 18)).to.equal(received)
        // Less than the deposit (this chain charges fees) by no more than the gather's gas budget.
        expect(received < amount).to.equal(true)
        expect(amount - received <= gatherTx.gas * gatherTx.maxFeePerGas!).to.equal(true)
    })

    it('without refund_address a late deposit is held for an operator and shown on the swap', async function () {
        const chain = w.chains.NATIVECHAIN
        const swap = await expiredSwap(['NATIVECHAIN', 'STABLE'], ['BSC', 'WNATIVE'], '30', null)
        await giveTokens(chain, 'STABLE', account(7).address, parseUnits('30', 6))
        const hash = await send(chain, 7, swap.deposit_address, parseUnits('30', 6), chain.tokens.STABLE)
        const [late] = await lateDeposits(swap.id, 'held')
        expect(late).to.include({ amount: '30', tx_hash: hash, operator_action_required: true, refund_tx_hash: null, refund_address: null })
        const receipt = await chain.client.getTransactionReceipt({ hash })
        expect(late.block_number).to.equal(receipt.blockNumber.toString())
        const held = (await eventsOf(bridge, swap.id)).filter((e) => e.event === 'late_deposit_held')
        expect(held).to.have.length(1)
        expect(held[0].data.operator_action_required).to.equal(true)
        // Held where it arrived: nothing moved.
        expect(await balanceOf(chain, swap.deposit_address, chain.tokens.STABLE)).to.equal(parseUnits('30', 6))
    })
})
