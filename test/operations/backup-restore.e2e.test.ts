import { expect } from 'chai'
import * as fs from 'fs'
import * as os from 'os'
import * as path from 'path'
import { Client, Pool } from 'pg'
import { Address, formatEther, Hash, numberToHex, parseEther, parseUnits } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { spawnManaged, waitFor } from '../../common/processes'
import { EmbeddedPostgres } from '../../db/postgres'
import { newWallet, PlatformClient } from '../api/platform/support'
import { PlatformProcess, startPlatformProcess } from '../support/api'
import { freePort } from '../support/ports'
import { archiveCurrentWal, ArchivingCluster, restoreCluster, startArchivingCluster, takeBaseBackup } from '../support/base-backup'
import {
    account, api, BroadcastGate, BridgeChains, BridgeProcess, bridgeEnv, createSwap, eventsOf, fundVaults, gateEnv, giveTokens, send, startBridge, startBridgeChains,
    startGates, storedAndTried, tempDir, transferAmounts, txRows, vaultOf, waitForStatus,
} from '../bridge/support'

/**
 * Backup and restore as docs/production.md#backup-and-restore tells an operator to do them: a base
 * backup of the running stack's Postgres, taken with bridge swaps in flight (deposits paid, payouts
 * stored but held back by the target chain's node) and platform wallets holding funds, plus the
 * archived WAL; the stack stopped; the database restored into a fresh cluster to a named restore
 * point after the backup; the platform and bridge started on it with the same secrets. Every
 * wallet signs again, every swap resumes and completes, and each payment is counted on chain:
 * one payout per swap, including the payout that the old stack sent and recorded only after the
 * restore point, and no platform transfer repeated. A swap whose payout the old stack signed and
 * sent only after the restore point (unknown to the restored database) is not paid again: the
 * ledger guard holds its vault and the swap for an operator, and the other vaults go on.
 */

const PWD = 'backup-restore-password'
const RESTORE_POINT = 'swaps-in-flight'

/**
 * Ends a pool and waits until its cluster has no client sessions left: pg-pool's end() resolves
 * before its sockets are closed, and a cluster stopped then tells them "terminating connection",
 * an error no one listens to any more.
 */
async function endPool(pool: Pool, url: string): Promise<void> {
    await pool.end()
    const client = new Client({ connectionString: url })
    await client.connect()
    try {
        await waitFor('the test\'s sessions to close', async () => (await client.query(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`
        )).rows[0].n === 0, 30_000, 50)
    } finally {
        await client.end()
    }
}

describe('backup and restore: a base backup with WAL, restored into a fresh cluster, with swaps in flight and funded wallets', function () {
    this.timeout(900_000)
    let w: BridgeChains
    let gate: BroadcastGate
    /** BSC's node as the bridge sees it: while it answers no nonce, nothing can be signed there. */
    let bscGate: BroadcastGate
    let primary: ArchivingCluster
    let restored: { pg: EmbeddedPostgres; dir: string } | undefined
    let pool: Pool
    let platform: PlatformProcess | undefined
    let bridge: BridgeProcess | undefined
    const dirs: string[] = []
    let backupDir: string
    /** Swaps whose payout broadcasts the ETHEREUM node refuses (HTTP 503) while the gate is blocked. */
    const held = new Set<string>()

    // What the first stack left, checked against the restored one.
    const swaps: Record<'paidAfterPoint' | 'inFlight' | 'awaitingDeposit' | 'signedAfterPoint', any> = {} as any
    const receivers = {
        paidAfterPoint: privateKeyToAccount(generatePrivateKey()).address,
        inFlight: privateKeyToAccount(generatePrivateKey()).address,
        awaitingDeposit: privateKeyToAccount(generatePrivateKey()).address,
        /** Paid on BSC by a payout first signed after the restore point. */
        signedAfterPoint: privateKeyToAccount(generatePrivateKey()).address,
    }
    const wallets: Address[] = []
    /** One platform transfer from wallets[0] after the base backup (in the WAL only), one from wallets[1] after the restore point (lost by the restore). */
    const sentBefore = { recipient: privateKeyToAccount(generatePrivateKey()).address, amount: parseEther('1') }
    const sentAfter = { recipient: privateKeyToAccount(generatePrivateKey()).address, amount: parseEther('2') }
    let vaults: Record<string, Address>

    const native = () => w.chains.NATIVECHAIN
    const eth = () => w.chains.ETHEREUM
    const bsc = () => w.chains.BSC
    const env = (databaseUrl: string) => ({ ...bridgeEnv(w, databaseUrl, tempDir()), ...gateEnv({ ETHEREUM: gate, BSC: bscGate }) })
    const service = (databaseUrl: string) => ({ databaseUrl, rpcUrl: native().url, contracts: w.native })
    const platformSend = (from: Address, to: Address, amount: bigint) =>
        new PlatformClient(platform!.platformUrl).post('/api/wallet/send', { address_from: from, token: 'NATIVE', amount: formatEther(amount), address_to: to }, PWD)

    before(async function () {
        ;[w, primary] = await Promise.all([startBridgeChains(), startArchivingCluster('stack')])
        ;({ ETHEREUM: gate, BSC: bscGate } = await startGates(w, ['ETHEREUM', 'BSC']))
        backupDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-basebackup-'))
        dirs.push(primary.dir, primary.archiveDir, backupDir)
        pool = new Pool({ connectionString: primary.pg.url, max: 2 })
        gate.filter = async (raw) => (await pool.query(
            `SELECT 1 FROM bridge_tx WHERE raw = $1 AND purpose = 'payout' AND swap_id::text = ANY($2)`, [raw, [...held]]
        )).rows.length > 0
        gate.blocked = true
        ;[platform, bridge] = await Promise.all([startPlatformProcess(service(primary.pg.url)), startBridge(env(primary.pg.url))])
        await fundVaults(w, bridge)
        vaults = { NATIVECHAIN: await vaultOf(bridge, 'NATIVECHAIN'), ETHEREUM: await vaultOf(bridge, 'ETHEREUM'), BSC: await vaultOf(bridge, 'BSC') }
    })

    after(async function () {
        await Promise.allSettled([platform?.stop(), bridge?.stop()])
        if (pool) await endPool(pool, (restored ?? primary).pg.url).catch(() => undefined)
        await Promise.allSettled([primary?.pg.stop(), restored?.pg.stop(), gate?.stop(), bscGate?.stop()])
        await w?.stop()
        for (const dir of [...dirs, ...(restored ? [restored.dir] : [])]) fs.rmSync(dir, { recursive: true, force: true })
    })

    /** A swap of `amount` STABLE on the native chain to USDT on ETHEREUM, deposited by development account `from`, its payout held at the node. */
    async function swapWithHeldPayout(from: number, receiver: Address, amount: string): Promise<any> {
        const swap = await createSwap(bridge!, {
            source_chain: 'NATIVECHAIN', source_token: 'STABLE', target_chain: 'ETHEREUM', target_token: 'USDT', source_token_amount: amount, target_wallet: receiver,
        })
        held.add(swap.id)
        await giveTokens(native(), 'STABLE', account(from).address, parseUnits(amount, 6))
        await send(native(), from, swap.deposit_address, parseUnits(amount, 6), native().tokens.STABLE)
        await storedAndTried(pool, bridge!, swap.id, 'payout', (row) => gate.refused.includes(row.raw))
        return swap
    }

    it('runs the stack, takes a base backup while swaps are in flight, and goes on after a restore point', async function () {
        const http = new PlatformClient(platform!.platformUrl)
        for (const user of ['backup-a', 'backup-b']) {
            const wallet = await newWallet(http, user, PWD)
            await native().client.request({ method: 'anvil_setBalance' as any, params: [wallet, numberToHex(parseEther('10'))] as any })
            wallets.push(wallet)
        }
        ;[swaps.paidAfterPoint, swaps.inFlight] = [await swapWithHeldPayout(6, receivers.paidAfterPoint, '12'), await swapWithHeldPayout(7, receivers.inFlight, '15')]
        swaps.awaitingDeposit = await createSwap(bridge!, {
            source_chain: 'NATIVECHAIN', source_token: 'STABLE', target_chain: 'ETHEREUM', target_token: 'USDT', source_token_amount: '11', target_wallet: receivers.awaitingDeposit,
        })
        // A swap to BSC that reaches vault_locked with nothing signed: BSC's node answers no nonce until after the restore point.
        bscGate.unsupported.add('eth_getTransactionCount')
        swaps.signedAfterPoint = await createSwap(bridge!, {
            source_chain: 'NATIVECHAIN', source_token: 'STABLE', target_chain: 'BSC', target_token: 'USDT', source_token_amount: '13', target_wallet: receivers.signedAfterPoint,
        })
        await giveTokens(native(), 'STABLE', account(9).address, parseUnits('13', 6))
        await send(native(), 9, swaps.signedAfterPoint.deposit_address, parseUnits('13', 6), native().tokens.STABLE)
        await waitForStatus(bridge!, swaps.signedAfterPoint.id, ['vault_locked'])

        await takeBaseBackup(primary, backupDir)

        // After the backup, before the restore point: only the archived WAL carries this transfer.
        const before = await platformSend(wallets[0], sentBefore.recipient, sentBefore.amount)
        expect(before.status, JSON.stringify(before.body)).to.equal(200)
        await native().client.waitForTransactionReceipt({ hash: before.body.hash as Hash, pollingInterval: 100 })
        expect(await txRows(pool, swaps.signedAfterPoint.id, 'payout')).to.deep.equal([])
        await pool.query(`SELECT pg_create_restore_point($1)`, [RESTORE_POINT])

        // After the restore point, on the old stack: a platform transfer, and the first swap's payout lets through, landing and recorded.
        const after = await platformSend(wallets[1], sentAfter.recipient, sentAfter.amount)
        expect(after.status, JSON.stringify(after.body)).to.equal(200)
        held.delete(swaps.paidAfterPoint.id)
        const done = await waitForStatus(bridge!, swaps.paidAfterPoint.id, ['completed'])
        const locked = BigInt((await pool.query('SELECT locked_target_amount FROM bridge_swap WHERE id = $1', [done.id])).rows[0].locked_target_amount)
        expect(await transferAmounts(eth(), eth().tokens.USDT, vaults.ETHEREUM, receivers.paidAfterPoint)).to.deep.equal([locked])
        expect((await waitForStatus(bridge!, swaps.inFlight.id, ['payout_processing'])).payout_tx_hash).to.be.a('string')
        // And the BSC swap's payout, first signed now, after the point: paid once.
        bscGate.unsupported.delete('eth_getTransactionCount')
        const bscDone = await waitForStatus(bridge!, swaps.signedAfterPoint.id, ['completed'])
        const bscLocked = BigInt((await pool.query('SELECT locked_target_amount FROM bridge_swap WHERE id = $1', [bscDone.id])).rows[0].locked_target_amount)
        expect(await transferAmounts(bsc(), bsc().tokens.USDT, vaults.BSC, receivers.signedAfterPoint)).to.deep.equal([bscLocked])

        // The old stack stops; the in-flight payout never left it.
        await Promise.all([platform!.stop(), bridge!.stop()])
        platform = bridge = undefined
        expect(await transferAmounts(eth(), eth().tokens.USDT, vaults.ETHEREUM, receivers.inFlight)).to.deep.equal([])
        gate.blocked = false
        await archiveCurrentWal(primary)
        await endPool(pool, primary.pg.url)
        await primary.pg.stop()
    })

    it('restores into a fresh cluster at the restore point: the database as it was then, the later transfer unknown', async function () {
        restored = await restoreCluster(backupDir, primary.archiveDir, 'stack', { name: RESTORE_POINT })
        expect(new URL(restored.pg.url).port).to.not.equal(new URL(primary.pg.url).port)
        pool = new Pool({ connectionString: restored.pg.url, max: 2 })
        const status = async (id: string) => (await pool.query('SELECT status FROM bridge_swap WHERE id = $1', [id])).rows[0].status
        // Both payouts stored, neither landed, as at the restore point; the second swap still waits for its deposit.
        expect(await status(swaps.paidAfterPoint.id)).to.equal('payout_processing')
        expect(await status(swaps.inFlight.id)).to.equal('payout_processing')
        expect(await status(swaps.awaitingDeposit.id)).to.equal('pending_deposit')
        // The BSC swap as at the point: locked, its payout (signed and sent later) unknown.
        expect(await status(swaps.signedAfterPoint.id)).to.equal('vault_locked')
        expect(await txRows(pool, swaps.signedAfterPoint.id, 'payout')).to.deep.equal([])
        for (const id of [swaps.paidAfterPoint.id, swaps.inFlight.id]) expect((await txRows(pool, id, 'payout')).map((r) => r.status)).to.deep.equal(['broadcast'])
        // The transfer made after the backup was replayed from the archive; the one after the restore point is not there.
        const sends = async (wallet: Address) => (await pool.query('SELECT to_address FROM platform_tx WHERE from_address = $1', [wallet.toLowerCase()])).rows
        expect((await sends(wallets[0])).map((r) => r.to_address.toLowerCase())).to.deep.equal([sentBefore.recipient.toLowerCase()])
        expect(await sends(wallets[1])).to.deep.equal([])
    })

    it('the bridge refuses to start on the restored database under another MASTER_KEY', async function () {
        const proc = spawnManaged(process.execPath, [path.resolve(__dirname, '../../bridge/main.js')], {
            name: 'bridge-wrong-key', env: { ...process.env, ...env(restored!.pg.url), MASTER_KEY: '33'.repeat(32), BRIDGE_PORT: String(await freePort()) },
        })
        let output = ''
        proc.child.stdout?.on('data', (d) => (output += d.toString()))
        proc.child.stderr?.on('data', (d) => (output += d.toString()))
        expect(await proc.exited).to.not.equal(0)
        expect(output).to.contain('the evm bridge seed does not open with this MASTER_KEY')
    })

    it('with the same secrets: every wallet signs, every swap resumes and completes, and nothing is paid twice', async function () {
        ;[platform, bridge] = await Promise.all([startPlatformProcess(service(restored!.pg.url)), startBridge(env(restored!.pg.url))])
        // The same HD seed, so the same vaults and deposit addresses.
        expect(await vaultOf(bridge, 'NATIVECHAIN')).to.equal(vaults.NATIVECHAIN)
        expect(await vaultOf(bridge, 'ETHEREUM')).to.equal(vaults.ETHEREUM)
        expect(await vaultOf(bridge, 'BSC')).to.equal(vaults.BSC)

        // The swap paid after the restore point: its stored payout is found landed, and nothing more is sent.
        await waitForStatus(bridge, swaps.paidAfterPoint.id, ['completed'])
        // The swap in flight: its stored payout is broadcast again, lands once.
        await waitForStatus(bridge, swaps.inFlight.id, ['completed'])
        // The swap awaiting its deposit: the restored seed derives the key that gathers it.
        await giveTokens(native(), 'STABLE', account(8).address, parseUnits('11', 6))
        await send(native(), 8, swaps.awaitingDeposit.deposit_address, parseUnits('11', 6), native().tokens.STABLE)
        await waitForStatus(bridge, swaps.awaitingDeposit.id, ['completed'])

        for (const key of ['paidAfterPoint', 'inFlight', 'awaitingDeposit'] as const) {
            const { rows: [row] } = await pool.query('SELECT locked_target_amount, payout_tx_hash FROM bridge_swap WHERE id = $1', [swaps[key].id])
            expect(await transferAmounts(eth(), eth().tokens.USDT, vaults.ETHEREUM, receivers[key]), key).to.deep.equal([BigInt(row.locked_target_amount)])
            expect((await txRows(pool, swaps[key].id, 'payout')).map((r) => [r.status, r.tx_hash]), key).to.deep.equal([['confirmed', row.payout_tx_hash]])
        }
        // Each deposit gathered once into the native vault.
        for (const key of ['paidAfterPoint', 'inFlight', 'awaitingDeposit'] as const) {
            expect(await transferAmounts(native(), native().tokens.STABLE, swaps[key].deposit_address, vaults.NATIVECHAIN), key).to.have.length(1)
        }

        // Every wallet signs a new transfer; the transfers of before the restore are neither repeated nor lost on chain.
        const nonces = await Promise.all(wallets.map((wallet) => native().client.getTransactionCount({ address: wallet })))
        expect(nonces).to.deep.equal([1, 1])
        for (const [i, wallet] of wallets.entries()) {
            const recipient = privateKeyToAccount(generatePrivateKey()).address
            const reply = await platformSend(wallet, recipient, parseEther('0.5'))
            expect(reply.status, JSON.stringify(reply.body)).to.equal(200)
            const receipt = await native().client.waitForTransactionReceipt({ hash: reply.body.hash as Hash, pollingInterval: 100 })
            expect(receipt.status).to.equal('success')
            expect(receipt.from.toLowerCase()).to.equal(wallet.toLowerCase())
            expect((await native().client.getTransaction({ hash: reply.body.hash as Hash })).nonce).to.equal(nonces[i])
            expect(await native().client.getBalance({ address: recipient })).to.equal(parseEther('0.5'))
        }
        expect(await native().client.getBalance({ address: sentBefore.recipient })).to.equal(sentBefore.amount)
        expect(await native().client.getBalance({ address: sentAfter.recipient })).to.equal(sentAfter.amount)
    })
    it('a payout first signed after the restore point is not paid again: the ledger guard holds the BSC vault and the swap for an operator', async function () {
        const id = swaps.signedAfterPoint.id
        const locked = BigInt((await pool.query('SELECT locked_target_amount FROM bridge_swap WHERE id = $1', [id])).rows[0].locked_target_amount)
        const held = await waitFor('the BSC swap held', async () => {
            const { body } = await api(bridge!, 'GET', `/api/swap/${id}`)
            return body.hold ? body : undefined
        }, 120_000, 250).catch((err) => {
            throw new Error(`${err.message}\nbridge output:\n${bridge!.output().slice(-4000)}`)
        })
        expect(held.status).to.equal('vault_locked')
        expect(held.hold.operator_action_required).to.equal(true)
        expect(held.hold.reason).to.include(`the BSC vault ${vaults.BSC} has sent 1 transaction(s) the bridge's ledger does not know`)
        const event = (await eventsOf(bridge!, id)).find((e: any) => e.event === 'swap_held')
        expect(event.data).to.include({ chain: 'BSC', vault_held: true, chain_nonce: 1, ledger_nonce: 0 })
        const { rows: holds } = await pool.query(`SELECT chain, address, ledger_next::int, chain_next::int FROM bridge_vault_hold WHERE released_at IS NULL`)
        expect(holds).to.deep.equal([{ chain: 'BSC', address: vaults.BSC.toLowerCase(), ledger_next: 0, chain_next: 1 }])
        const metrics = await (await fetch(`${bridge!.url}/metrics`)).text()
        const heldGauge = (chain: string) => metrics.split('\n').filter((l) => l.startsWith('bridge_vault_held{') && l.includes(`chain="${chain}"`)).map((l) => Number(l.slice(l.lastIndexOf(' ') + 1)))
        expect(heldGauge('BSC')).to.deep.equal([1])
        expect(heldGauge('ETHEREUM')).to.deep.equal([0])
        // Nothing signed for it, and the one payout of before the restore is the only one on chain.
        expect(await txRows(pool, id, 'payout')).to.deep.equal([])
        expect(await transferAmounts(bsc(), bsc().tokens.USDT, vaults.BSC, receivers.signedAfterPoint)).to.deep.equal([locked])

        // The operator finds the vault's unknown transaction (the payout of this swap), leaves the swap
        // held as paid, and releases the vault: a new swap to BSC is paid, once, at the next nonce.
        await pool.query(`UPDATE bridge_vault_hold SET released_at = now() WHERE chain = 'BSC' AND released_at IS NULL`)
        const receiver = privateKeyToAccount(generatePrivateKey()).address
        const next = await createSwap(bridge!, {
            source_chain: 'NATIVECHAIN', source_token: 'STABLE', target_chain: 'BSC', target_token: 'USDT', source_token_amount: '14', target_wallet: receiver,
        })
        await giveTokens(native(), 'STABLE', account(10).address, parseUnits('14', 6))
        await send(native(), 10, next.deposit_address, parseUnits('14', 6), native().tokens.STABLE)
        await waitForStatus(bridge!, next.id, ['completed'])
        const nextLocked = BigInt((await pool.query('SELECT locked_target_amount FROM bridge_swap WHERE id = $1', [next.id])).rows[0].locked_target_amount)
        expect(await transferAmounts(bsc(), bsc().tokens.USDT, vaults.BSC, receiver)).to.deep.equal([nextLocked])
        expect((await txRows(pool, next.id, 'payout')).map((r) => [r.status, r.nonce])).to.deep.equal([['confirmed', '1']])
        // The held swap stays held and unpaid a second time.
        expect((await api(bridge!, 'GET', `/api/swap/${id}`)).body.hold.reason).to.equal(held.hold.reason)
        expect(await transferAmounts(bsc(), bsc().tokens.USDT, vaults.BSC, receivers.signedAfterPoint)).to.deep.equal([locked])
    })
})
