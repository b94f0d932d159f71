import { expect } from 'chai'
import { Pool } from 'pg'
import { Address } from 'viem'
import { waitFor } from '../../common/processes'
import {
    account, api, BridgeChains, BridgeProcess, BroadcastGate, createSwap, eventsOf, GatedBridge, giveTokens, parseUnits, send, startGatedBridge,
    transferAmounts, txRows, vaultOf, waitForStatus,
} from './support'
import { waitForOutput } from '../support/output'

/**
 * The ledger guard (docs/bridge/lifecycle.md#vault-holds) with the real bridge process and anvils:
 * a node that answers a higher nonce once is looked at again and the payout goes out; a vault that
 * sent a transaction the ledger does not know (another user of its key) is held with every swap
 * that would sign from it, other vaults go on, and after the operator releases the vault and the
 * swaps each swap is paid once. The restore to an earlier point is
 * test/operations/backup-restore.e2e.test.ts.
 */
describe('bridge: the ledger guard holds a vault that sent transactions the ledger does not know', function () {
    let w: BridgeChains
    let bridge: BridgeProcess
    let gate: BroadcastGate
    let pool: Pool
    let started: GatedBridge
    let ethVault: Address
    let user = 30

    before(async function () {
        started = await startGatedBridge('bridge_ledger_guard')
        ;({ w, bridge, gate, pool } = started)
        ethVault = await vaultOf(bridge, 'ETHEREUM')
    })

    after(async function () {
        await started?.stop()
    })

    /** A swap of 12 STABLE on the native chain to USDT on `target`, deposited; its receiver. */
    async function depositedSwap(target: 'ETHEREUM' | 'POLYGON'): Promise<{ swap: any; receiver: Address }> {
        const native = w.chains.NATIVECHAIN
        const from = user++
        const receiver = account(100 + from).address
        await giveTokens(native, 'STABLE', account(from).address, parseUnits('12', 6))
        const swap = await createSwap(bridge, {
            source_chain: 'NATIVECHAIN', source_token: 'STABLE', target_chain: target, target_token: 'USDT', source_token_amount: '12', target_wallet: receiver,
        })
        await send(native, from, swap.deposit_address, parseUnits('12', 6), native.tokens.STABLE)
        return { swap, receiver }
    }

    const lockedOf = async (id: string) => BigInt((await pool.query('SELECT locked_target_amount FROM bridge_swap WHERE id = $1', [id])).rows[0].locked_target_amount)
    const openHolds = async () => (await pool.query(`SELECT chain, address, ledger_next::int, chain_next::int FROM bridge_vault_hold WHERE released_at IS NULL`)).rows

    async function held(id: string): Promise<any> {
        return waitFor(`swap ${id} held`, async () => {
            const { body } = await api(bridge, 'GET', `/api/swap/${id}`)
            return body.hold ? body : undefined
        }, 120_000, 250).catch((err) => {
            throw new Error(`${err.message}\nbridge output:\n${bridge.output().slice(-4000)}`)
        })
    }

    it('a node that answers a higher nonce once: looked at again, nothing held, the payout is paid once', async function () {
        const eth = w.chains.ETHEREUM
        // The guard's first read (latest and pending) is 5 ahead; every later answer is the node's.
        gate.inflatedCounts = { address: ethVault, by: 5, left: 2 }
        const { swap, receiver } = await depositedSwap('ETHEREUM')
        await waitForStatus(bridge, swap.id, ['completed'], 180_000)
        expect(gate.inflatedCounts.left).to.equal(0)
        await waitForOutput(bridge, 'looking again before holding it')
        expect(await transferAmounts(eth, eth.tokens.USDT, ethVault, receiver)).to.deep.equal([await lockedOf(swap.id)])
        expect((await txRows(pool, swap.id, 'payout')).map((r) => [r.status, r.nonce])).to.deep.equal([['confirmed', '0']])
        expect(await openHolds()).to.deep.equal([])
    })

    it('another user of the vault key: the vault and every swap that would sign from it are held, other vaults go on; released by an operator, each swap is paid once', async function () {
        const eth = w.chains.ETHEREUM
        const polygon = w.chains.POLYGON
        // Someone else signs from the ETHEREUM vault: a transaction the ledger never had, at the next nonce.
        await eth.client.request({ method: 'anvil_impersonateAccount' as any, params: [ethVault] as any })
        try {
            const other = await eth.client.request({
                method: 'eth_sendTransaction' as any, params: [{ from: ethVault, to: ethVault, value: '0x0', maxFeePerGas: '0x0', maxPriorityFeePerGas: '0x0' }] as any,
            }) as `0x${string}`
            expect((await eth.client.waitForTransactionReceipt({ hash: other, pollingInterval: 100 })).status).to.equal('success')
        } finally {
            await eth.client.request({ method: 'anvil_stopImpersonatingAccount' as any, params: [ethVault] as any })
        }

        const first = await depositedSwap('ETHEREUM')
        const firstHeld = await held(first.swap.id)
        expect(firstHeld.status).to.equal('vault_locked')
        expect(firstHeld.hold.operator_action_required).to.equal(true)
        expect(firstHeld.hold.reason).to.include(`the ETHEREUM vault ${ethVault} has sent 1 transaction(s) the bridge's ledger does not know (the node counts 2, the ledger accounts for 1)`)
        const event = (await eventsOf(bridge, first.swap.id)).find((e: any) => e.event === 'swap_held')
        expect(event.data).to.include({ chain: 'ETHEREUM', vault: ethVault, vault_held: true, chain_nonce: 2, ledger_nonce: 1 })
        expect(await openHolds()).to.deep.equal([{ chain: 'ETHEREUM', address: ethVault.toLowerCase(), ledger_next: 1, chain_next: 2 }])
        expect(bridge.output().match(/vault held for an operator/g)).to.have.length(1)

        // While the vault is held: another swap to it is held too; a swap to POLYGON is paid.
        const second = await depositedSwap('ETHEREUM')
        const polygonSwap = await depositedSwap('POLYGON')
        expect((await held(second.swap.id)).hold.reason).to.equal(firstHeld.hold.reason)
        await waitForStatus(bridge, polygonSwap.swap.id, ['completed'])
        const polygonVault = await vaultOf(bridge, 'POLYGON')
        expect(await transferAmounts(polygon, polygon.tokens.USDT, polygonVault, polygonSwap.receiver)).to.deep.equal([await lockedOf(polygonSwap.swap.id)])
        for (const { swap, receiver } of [first, second]) {
            expect(await txRows(pool, swap.id, 'payout')).to.deep.equal([])
            expect(await transferAmounts(eth, eth.tokens.USDT, ethVault, receiver)).to.deep.equal([])
        }
        expect(bridge.output().match(/vault held for an operator/g)).to.have.length(1)

        // The operator finds the unknown transaction paid no swap, releases the vault, then the swaps.
        await pool.query(`UPDATE bridge_vault_hold SET released_at = now() WHERE chain = 'ETHEREUM' AND released_at IS NULL`)
        await pool.query(`UPDATE bridge_swap SET hold_reason = NULL, held_at = NULL WHERE id = ANY($1)`, [[first.swap.id, second.swap.id]])
        for (const { swap, receiver } of [first, second]) {
            await waitForStatus(bridge, swap.id, ['completed'], 180_000)
            expect(await transferAmounts(eth, eth.tokens.USDT, ethVault, receiver)).to.deep.equal([await lockedOf(swap.id)])
        }
        const nonces = (await pool.query(`SELECT nonce::int FROM bridge_tx WHERE chain = 'ETHEREUM' AND purpose = 'payout' AND swap_id = ANY($1) ORDER BY nonce`, [[first.swap.id, second.swap.id]])).rows
        expect(nonces.map((r) => r.nonce)).to.deep.equal([2, 3])
        expect(await openHolds()).to.deep.equal([])
    })
})
