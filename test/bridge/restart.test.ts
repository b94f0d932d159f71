import { expect } from 'chai'
import * as fs from 'fs'
import * as path from 'path'
import { Address, parseUnits } from 'viem'
import { createTestDatabase } from '../support/postgres'
import {
    account, api, BroadcastGate, BridgeChains, BridgeProcess, bridgeEnv, createSwap, fundVaults, giveTokens, send, startBridge, startBridgeChains,
    tempDir, waitForStatus,
} from './support'

/**
 * Deposit detection on a node without historical state. The native chain's
 * anvil is restarted from its state file (it then answers no balance for blocks before the
 * restart, as a pruned node would not) and the bridge is restarted too, with swaps still waiting
 * from before. Deposits into the old and into new swaps, coin and token, must all be detected and
 * complete. More than one scan range (500 blocks) lies between the old swaps' first block and the
 * restart: a monitor that scans from the oldest swap and asks the node for balances there never
 * gets past its first range.
 */
describe('bridge: deposits detected after the node and the bridge restart (node without historical state)', function () {
    let w: BridgeChains
    let bridge: BridgeProcess | undefined
    let dir: string
    let env: Record<string, string>

    before(async function () {
        const databaseUrl = await createTestDatabase('bridge_restart')
        dir = tempDir()
        w = await startBridgeChains({ stateDir: path.join(dir, 'chains') })
        env = bridgeEnv(w, databaseUrl, dir)
        bridge = await startBridge(env)
        await fundVaults(w, bridge)
    })

    after(async function () {
        await bridge?.stop()
        await w?.stop()
        if (dir) fs.rmSync(dir, { recursive: true, force: true })
    })

    const native = () => w.chains.NATIVECHAIN
    const coinSwap = (b: BridgeProcess) => createSwap(b, {
        source_chain: 'NATIVECHAIN', source_token: 'NATIVE', target_chain: 'ETHEREUM', target_token: 'USDT',
        source_token_amount: '0.5', target_wallet: account(9).address, refund_address: account(5).address,
    })
    const tokenSwap = (b: BridgeProcess) => createSwap(b, {
        source_chain: 'NATIVECHAIN', source_token: 'STABLE', target_chain: 'BSC', target_token: 'WNATIVE',
        source_token_amount: '30', target_wallet: account(9).address, refund_address: account(7).address,
    })

    it('finds deposits into swaps made before and after the restart, coin and token, and completes them', async function () {
        const oldCoin = await coinSwap(bridge!)
        const oldToken = await tokenSwap(bridge!)
        await giveTokens(native(), 'STABLE', account(7).address, parseUnits('60', 6))
        // 600 blocks on top of the swaps' first block: more than one scan range before the restart.
        await native().client.request({ method: 'anvil_mine' as any, params: ['0x258'] as any })
        const restartedAt = await native().client.getBlockNumber()

        await bridge!.stop()
        bridge = undefined
        await w.restart('NATIVECHAIN')
        // The premise: the restarted node has no state for the blocks where the old swaps began.
        const pruned = await native().client.getBalance({ address: oldCoin.deposit_address, blockNumber: restartedAt - 300n })
            .then(() => false, (err) => /BlockOutOfRange/.test(String(err)))
        expect(pruned).to.equal(true)
        bridge = await startBridge(env)

        const newCoin = await coinSwap(bridge)
        const newToken = await tokenSwap(bridge)
        const coinDeposits: Record<string, string> = {}
        for (const s of [oldCoin, newCoin]) coinDeposits[s.id] = await send(native(), 5, s.deposit_address as Address, parseUnits('0.5', 18))
        const tokenDeposits: Record<string, string> = {}
        for (const s of [oldToken, newToken]) tokenDeposits[s.id] = await send(native(), 7, s.deposit_address as Address, parseUnits('30', 6), native().tokens.STABLE)

        const done = await Promise.all([oldCoin, newCoin, oldToken, newToken].map((s) => waitForStatus(bridge!, s.id, ['completed'], 100_000)))
        for (const d of done) {
            expect(d.deposit_tx_hash).to.equal(coinDeposits[d.id] ?? tokenDeposits[d.id])
            expect(d.deposit_amount).to.equal(d.source_token === 'NATIVE' ? '0.5' : '30')
            // Dated in the block it was mined in, after the restart.
            const receipt = await native().client.getTransactionReceipt({ hash: d.deposit_tx_hash })
            expect(d.deposit_block_number).to.equal(receipt.blockNumber.toString())
            expect(receipt.blockNumber > restartedAt).to.equal(true)
        }
    })

    it('a node that fails the token-log queries holds up only the token deposits, which are found once it answers again', async function () {
        const gate = new BroadcastGate(native().url)
        await gate.start()
        try {
            gate.unsupported.add('eth_getLogs')
            await bridge!.stop()
            bridge = undefined
            bridge = await startBridge({ ...env, RPC_URL: gate.url })
            const coin = await coinSwap(bridge)
            const token = await tokenSwap(bridge)
            await giveTokens(native(), 'STABLE', account(7).address, parseUnits('30', 6))
            const tokenHash = await send(native(), 7, token.deposit_address as Address, parseUnits('30', 6), native().tokens.STABLE)
            await send(native(), 5, coin.deposit_address as Address, parseUnits('0.5', 18))
            // The coin deposit (found by balance) goes through while no log query succeeds.
            await waitForStatus(bridge, coin.id, ['completed'], 100_000)
            expect((await api(bridge, 'GET', `/api/swap/${token.id}`)).body.status).to.equal('pending_deposit')
            // The range the failed queries covered is read again once the node answers them.
            gate.unsupported.delete('eth_getLogs')
            const done = await waitForStatus(bridge, token.id, ['completed'], 100_000)
            expect(done.deposit_tx_hash).to.equal(tokenHash)
            const receipt = await native().client.getTransactionReceipt({ hash: tokenHash })
            expect(done.deposit_block_number).to.equal(receipt.blockNumber.toString())
        } finally {
            await bridge?.stop()
            bridge = undefined
            await gate.stop()
        }
    })
})
