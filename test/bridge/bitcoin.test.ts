import { mnemonicToSeedSync } from '@scure/bip39'
import * as bitcoin from 'bitcoinjs-lib'
import { expect } from 'chai'
import { randomBytes } from 'crypto'
import { ECPairFactory } from 'ecpair'
import { Pool } from 'pg'
import * as ecc from 'tiny-secp256k1'
import { InsufficientForFeeError, SignedTransfer } from '../../bridge/chains/adapter'
import { BitcoinAdapter, ReplacementError } from '../../bridge/chains/bitcoin/adapter'
import { BitcoinConfig, defaultBitcoinConfig } from '../../bridge/chains/bitcoin/config'
import { feeFor, p2wpkhSpendVsize } from '../../bridge/chains/bitcoin/fees'
import { DustOutputError, InsufficientFundsError } from '../../bridge/chains/bitcoin/selection'
import { Asset } from '../../bridge/config'
import { KeyManager } from '../../bridge/keys'
import { Sealer } from '../../common/sealing'
import { tokenSpec } from '../../bridge/registry'
import { applyMigrations } from '../../db/migrate'
import { CoreRpcServer } from '../../devnet/bitcoin/core-rpc'
import { Ledger } from '../../devnet/bitcoin/ledger'
import { EsploraServer, startEsploraServer } from '../../devnet/bitcoin/esplora'
import { createTestDatabase } from '../support/postgres'

const ECPair = ECPairFactory(ecc)
const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'
const MASTER_KEY = '33'.repeat(32)
const BTC: Asset = { ...tokenSpec('BITCOIN', 'BTC')!, chain: 'BITCOIN', family: 'bitcoin' }
const MINED = { confirmations: 1 }
/** The double's estimate for the adapter's default 3-block target, 10.125 sat/vB, in sat/kvB. */
const RATE = 10_125n
const deposit = (index: number) => ({ kind: 'deposit' as const, index })
const VAULT = { kind: 'vault' as const }

/**
 * The BITCOIN adapter, signing included, against an Esplora double (devnet/bitcoin) that
 * checks every transaction it is sent: keys from the bridge's sealed seed, deposits and their
 * depth, reorgs, gathering, payouts with change, idempotent rebroadcast, replacement only when the
 * old transaction provably cannot land, and the network boundary.
 */
describe('bitcoin: the adapter against an Esplora double', function () {
    let pool: Pool
    let keys: KeyManager
    let regtest: EsploraServer
    let testnet: EsploraServer
    let config: BitcoinConfig
    let adapter: BitcoinAdapter

    const ledger = () => regtest.ledger
    const regtestAddress = () => bitcoin.payments.p2wpkh({ hash: randomBytes(20), network: bitcoin.networks.regtest }).address!
    const get = async (double: EsploraServer, path: string) => {
        const response = await fetch(double.url + path)
        return { status: response.status, text: await response.text() }
    }
    const utxosOf = async (address: string) => JSON.parse((await get(regtest, `/address/${address}/utxo`)).text) as { value: number }[]

    before(async function () {
        const databaseUrl = await createTestDatabase('bridge_bitcoin')
        await applyMigrations(databaseUrl)
        pool = new Pool({ connectionString: databaseUrl, max: 4 })
        // The bitcoin family's seed, sealed exactly as KeyManager seals it, is BIP-84's test mnemonic: its vectors apply.
        const seed = Buffer.from(mnemonicToSeedSync(MNEMONIC))
        const { iv, ciphertext } = new Sealer(MASTER_KEY, 'bridge-seed-v1').seal(seed, 'bridge_key_seed:bitcoin')
        await pool.query('INSERT INTO bridge_key_seed (family, iv, ciphertext) VALUES ($1, $2, $3)', ['bitcoin', iv, ciphertext])
        keys = new KeyManager(pool, MASTER_KEY)
        await keys.init(['bitcoin'])
        regtest = await startEsploraServer('regtest')
        testnet = await startEsploraServer('testnet')
        config = defaultBitcoinConfig('regtest', { kind: 'esplora', url: regtest.url })
        adapter = new BitcoinAdapter(config, keys)
    })

    after(async function () {
        await regtest?.close()
        await testnet?.close()
        await pool?.end()
    })

    it('derives BIP-84 addresses from the sealed bitcoin seed and checks the backend serves its network', async function () {
        const mainnet = new BitcoinAdapter(defaultBitcoinConfig('mainnet', { kind: 'esplora', url: regtest.url }), keys)
        expect(await mainnet.deriveAddress(deposit(0))).to.equal('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu')
        expect(await mainnet.deriveAddress(deposit(1))).to.equal('bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g')
        expect(await adapter.deriveAddress(deposit(0))).to.equal('bcrt1q6rz28mcfaxtmd6v789l9rrlrusdprr9pz3cppk')
        const vault = await adapter.deriveAddress(VAULT)
        expect(vault).to.match(/^bcrt1q/).and.not.equal(await adapter.deriveAddress(deposit(0)))
        expect(adapter.chain).to.equal('BITCOIN')
        expect(adapter.family).to.equal('bitcoin')
        await adapter.checkNetwork()
        let refused: Error | undefined
        await mainnet.checkNetwork().catch((err) => (refused = err))
        expect(refused?.message).to.equal('BITCOIN: the backend serves regtest, expected mainnet')
    })

    it('serves the Esplora routes with their field names', async function () {
        const address = await adapter.deriveAddress(deposit(5))
        const { txid } = ledger().fund(address, 123_456n)
        ledger().mine(1)
        expect((await get(regtest, '/blocks/tip/height')).text).to.equal(String(ledger().tipHeight))
        expect((await get(regtest, '/blocks/tip/hash')).text).to.equal(ledger().tip.hash)
        expect((await get(regtest, '/block-height/0')).text).to.equal('0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206')
        const utxos = JSON.parse((await get(regtest, `/address/${address}/utxo`)).text)
        expect(utxos).to.deep.equal([{
            txid, vout: 0, value: 123_456,
            status: { confirmed: true, block_height: ledger().tipHeight, block_hash: ledger().tip.hash, block_time: ledger().tip.time },
        }])
        const tx = JSON.parse((await get(regtest, `/tx/${txid}`)).text)
        expect(tx).to.include.keys('txid', 'version', 'locktime', 'vin', 'vout', 'size', 'weight', 'fee', 'status')
        expect(tx.vin[0]).to.include.keys('txid', 'vout', 'prevout', 'scriptsig', 'scriptsig_asm', 'witness', 'is_coinbase', 'sequence')
        expect(tx.vin[0].prevout.scriptpubkey_type).to.equal('v0_p2wpkh')
        expect(tx.vout[0]).to.deep.include({ scriptpubkey_address: address, scriptpubkey_type: 'v0_p2wpkh', value: 123_456 })
        expect(tx.vout[0].scriptpubkey_asm).to.match(/^OP_0 OP_PUSHBYTES_20 [0-9a-f]{40}$/)
        expect(JSON.parse((await get(regtest, `/tx/${txid}/outspend/0`)).text)).to.deep.equal({ spent: false })
        const block = JSON.parse((await get(regtest, `/block/${ledger().tip.hash}`)).text)
        expect(block).to.include({ id: ledger().tip.hash, height: ledger().tipHeight, tx_count: 2 })
        expect(block.previousblockhash).to.equal(ledger().blocks[ledger().tipHeight - 1].hash)
        expect(JSON.parse((await get(regtest, '/fee-estimates')).text)['3']).to.equal(10.125)
        expect(await get(regtest, `/tx/${'ab'.repeat(32)}`)).to.deep.equal({ status: 404, text: 'Transaction not found' })
        expect(await get(regtest, '/block-height/999999')).to.deep.equal({ status: 404, text: 'Block not found' })
        expect((await get(regtest, '/address/tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl/utxo')).status).to.equal(400)
    })

    it('sees a deposit once mined and makes it final by depth, deeper for larger amounts', async function () {
        const head = await adapter.head()
        const small = await adapter.deriveAddress(deposit(10))
        const watch = { swapId: 'swap-10', address: small, asset: BTC, fromBlock: head.number }
        const { txid } = ledger().fund(small, 500_000n)
        expect(await adapter.scanDeposits([watch], head.number, head.number)).to.deep.equal([]) // in the mempool only
        ledger().mine(1)
        const tip = (await adapter.head()).number
        const seen = await adapter.scanDeposits([watch], head.number + 1n, tip)
        expect(seen).to.have.length(1)
        expect(seen[0]).to.deep.include({ swapId: 'swap-10', txHash: txid, amount: 500_000n, blockNumber: tip, blockHash: ledger().tip.hash })
        expect(seen[0].blockTime.getTime()).to.equal(ledger().tip.time * 1000)
        expect(await adapter.scanDeposits([watch], tip + 1n, tip + 10n)).to.deep.equal([])
        // A payment before the swap existed is not its deposit.
        expect(await adapter.scanDeposits([{ ...watch, fromBlock: tip + 1n }], 0n, tip)).to.deep.equal([])

        const check = (d: typeof seen[0], finality = config.finality, withAmount = true) =>
            adapter.checkDeposit({ txHash: d.txHash, blockNumber: d.blockNumber, blockHash: d.blockHash, ...(withAmount ? { amount: d.amount } : {}) }, finality)
        expect(await check(seen[0])).to.deep.equal({ state: 'final', confirmations: 1 })
        expect(await check(seen[0], { confirmations: 2 })).to.deep.equal({ state: 'pending', confirmations: 1 })

        const large = await adapter.deriveAddress(deposit(11))
        ledger().fund(large, 50_000_000n)
        ledger().mine(1)
        const [big] = await adapter.scanDeposits([{ ...watch, swapId: 'swap-11', address: large }], tip + 1n, (await adapter.head()).number)
        expect(big.amount).to.equal(50_000_000n)
        expect(adapter.requiredConfirmations(big.amount)).to.equal(3)
        expect(await check(big)).to.deep.equal({ state: 'pending', confirmations: 1 })
        ledger().mine(1)
        expect(await check(big)).to.deep.equal({ state: 'pending', confirmations: 2 })
        ledger().mine(1)
        expect(await check(big)).to.deep.equal({ state: 'final', confirmations: 3 })
        // Without the credited amount the whole transaction's value stands in (the faucet's ~49.5 BTC change too): 6 confirmations.
        expect(await check(big, config.finality, false)).to.deep.equal({ state: 'pending', confirmations: 3 })
    })

    it('follows a deposit a reorg moves to another block, and loses one a reorg drops', async function () {
        const address = await adapter.deriveAddress(deposit(12))
        const head = await adapter.head()
        const watch = { swapId: 'swap-12', address, asset: BTC, fromBlock: head.number }
        const { txid } = ledger().fund(address, 400_000n)
        ledger().mine(1)
        const [seen] = await adapter.scanDeposits([watch], head.number, (await adapter.head()).number)
        const minedAt = ledger().heightOf(txid)!
        ledger().reorg(1)
        const moved = await adapter.checkDeposit({ ...seen, amount: seen.amount }, config.finality)
        expect(moved).to.deep.equal({ state: 'moved', blockNumber: BigInt(minedAt), blockHash: ledger().blocks[minedAt].hash })
        expect(ledger().blocks[minedAt].hash).to.not.equal(seen.blockHash)
        ledger().reorg(ledger().tipHeight - minedAt + 1, { drop: [txid] })
        expect(await adapter.checkDeposit({ ...seen, blockHash: ledger().blocks[minedAt].hash }, config.finality)).to.deep.equal({ state: 'orphaned' })
        expect(await adapter.scanDeposits([watch], head.number, (await adapter.head()).number)).to.deep.equal([])
    })

    it('gathers a deposit: one transaction spends every deposit output to the vault, less the fee at the node estimate', async function () {
        const address = await adapter.deriveAddress(deposit(13))
        const vault = await adapter.deriveAddress(VAULT)
        ledger().fund(address, 300_000n)
        ledger().fund(address, 200_000n)
        ledger().mine(1)
        const vaultBefore = await adapter.balance(vault, BTC)
        const signed = await adapter.signTransfer({ from: deposit(13), to: vault, asset: BTC, amount: 'all' }, [])
        const tx = bitcoin.Transaction.fromHex(signed.raw)
        expect(tx.ins).to.have.length(2)
        expect(tx.outs).to.have.length(1)
        expect(bitcoin.address.fromOutputScript(tx.outs[0].script, bitcoin.networks.regtest)).to.equal(vault)
        const fee = feeFor(p2wpkhSpendVsize(2, ['p2wpkh']), RATE)
        expect(fee).to.equal(1_803n)
        expect(signed).to.deep.include({ from: address, hash: tx.getId(), nonce: null, amount: 500_000n - fee })
        expect(tx.outs[0].value).to.equal(signed.amount)
        // What was signed pays at least the estimate for its real size.
        expect(fee * 1000n >= BigInt(tx.virtualSize()) * RATE).to.equal(true)
        expect(await adapter.broadcast(signed.raw)).to.deep.equal({ kind: 'accepted' })
        expect(await adapter.inspect({ hash: signed.hash, from: address, nonce: null }, MINED)).to.deep.equal({ kind: 'pending' })
        ledger().mine(1)
        expect(await adapter.inspect({ hash: signed.hash, from: address, nonce: null }, MINED)).to.deep.equal({
            kind: 'confirmed', blockNumber: BigInt(ledger().tipHeight), final: true, confirmations: 1,
        })
        expect(await adapter.balance(address, BTC)).to.equal(0n)
        expect(await adapter.balance(vault, BTC)).to.equal(vaultBefore + signed.amount)

        // A large deposit is swept only once it is as deep as its amount needs (3 confirmations for 0.5 BTC).
        const largeAddress = await adapter.deriveAddress(deposit(14))
        ledger().fund(largeAddress, 50_000_000n)
        ledger().mine(1)
        let early: unknown
        await adapter.signTransfer({ from: deposit(14), to: vault, asset: BTC, amount: 'all' }, []).catch((err) => (early = err))
        expect(early).to.be.instanceOf(InsufficientForFeeError)
        ledger().mine(2)
        const large = await adapter.signTransfer({ from: deposit(14), to: vault, asset: BTC, amount: 'all' }, [])
        expect(large.amount).to.equal(50_000_000n - feeFor(110, RATE))
        expect(await adapter.broadcast(large.raw)).to.deep.equal({ kind: 'accepted' })
        ledger().mine(1)

        // A deposit that does not cover the fee of moving it cannot be gathered.
        const tiny = await adapter.deriveAddress(deposit(15))
        ledger().fund(tiny, 1_000n)
        ledger().mine(1)
        let short: unknown
        await adapter.signTransfer({ from: deposit(15), to: vault, asset: BTC, amount: 'all' }, []).catch((err) => (short = err))
        expect(short).to.be.instanceOf(InsufficientForFeeError)
    })

    it('pays out from the vault with change back to the vault, and refuses dust and shortfalls', async function () {
        const vault = await adapter.deriveAddress(VAULT)
        const vaultScript = bitcoin.address.toOutputScript(vault, bitcoin.networks.regtest)
        const recipient = regtestAddress()
        const before = await adapter.balance(vault, BTC)
        const bound = await adapter.transferFee(BTC, vault, recipient)
        const signed = await adapter.signTransfer({ from: VAULT, to: recipient, asset: BTC, amount: 120_000n }, [])
        const tx = bitcoin.Transaction.fromHex(signed.raw)
        expect(signed.amount).to.equal(120_000n)
        expect(tx.outs.map((o) => bitcoin.address.fromOutputScript(o.script, bitcoin.networks.regtest))).to.deep.equal([recipient, vault])
        expect(tx.outs[0].value).to.equal(120_000n)
        let inputs = 0n
        for (const input of tx.ins) {
            const spent = ledger().output(Buffer.from(input.hash).reverse().toString('hex'), input.index)!
            expect(Buffer.from(spent.script).equals(Buffer.from(vaultScript))).to.equal(true)
            inputs += spent.value
        }
        const fee = inputs - 120_000n - tx.outs[1].value
        expect(fee * 1000n >= BigInt(tx.virtualSize()) * RATE).to.equal(true)
        expect(fee <= bound).to.equal(true)
        expect(await adapter.broadcast(signed.raw)).to.deep.equal({ kind: 'accepted' })

        // The next payout may spend the first one's unconfirmed change: only we can spend it.
        const second = regtestAddress()
        const more = await adapter.signTransfer({ from: VAULT, to: second, asset: BTC, amount: 30_000_000n }, [])
        const spendsChange = bitcoin.Transaction.fromHex(more.raw).ins.some((i) => Buffer.from(i.hash).reverse().toString('hex') === signed.hash)
        expect(spendsChange).to.equal(true)
        expect(await adapter.broadcast(more.raw)).to.deep.equal({ kind: 'accepted' })
        // Other output kinds are paid too (a legacy P2PKH address here).
        const legacy = bitcoin.payments.p2pkh({ hash: randomBytes(20), network: bitcoin.networks.regtest }).address!
        const third = await adapter.signTransfer({ from: VAULT, to: legacy, asset: BTC, amount: 50_000n }, [])
        expect(await adapter.broadcast(third.raw)).to.deep.equal({ kind: 'accepted' })
        ledger().mine(1)
        expect(await utxosOf(recipient)).to.have.length(1).and.to.have.nested.property('[0].value', 120_000)
        expect((await utxosOf(second))[0].value).to.equal(30_000_000)
        expect((await utxosOf(legacy))[0].value).to.equal(50_000)
        const fees = [signed, more, third].map((s) => ledger().txs.get(s.hash)!.fee).reduce((a, b) => a + b, 0n)
        expect(await adapter.balance(vault, BTC)).to.equal(before - 120_000n - 30_000_000n - 50_000n - fees)

        let dust: unknown
        await adapter.signTransfer({ from: VAULT, to: recipient, asset: BTC, amount: 293n }, []).catch((err) => (dust = err))
        expect(dust).to.be.instanceOf(DustOutputError)
        let shortfall: unknown
        await adapter.signTransfer({ from: VAULT, to: recipient, asset: BTC, amount: 100_000_000_000n }, []).catch((err) => (shortfall = err))
        expect(shortfall).to.be.instanceOf(InsufficientFundsError).and.to.be.instanceOf(InsufficientForFeeError)
    })

    it('reads what a known transaction paid the vault, even once the vault has spent it (a provider\'s payout)', async function () {
        const vault = await adapter.deriveAddress(VAULT)
        const paid = ledger().fund(vault, 777_000n)
        expect(await adapter.transferTo(paid.txid, vault, BTC), 'not mined yet').to.equal(undefined)
        ledger().mine(1)
        // The vault spends everything it holds: the output is no longer in its UTXO list, which scans read.
        const sweep = await adapter.signTransfer({ from: VAULT, to: regtestAddress(), asset: BTC, amount: (await adapter.balance(vault, BTC)) - 10_000n }, [])
        expect(await adapter.broadcast(sweep.raw)).to.deep.equal({ kind: 'accepted' })
        ledger().mine(1)
        expect((await utxosOf(vault)).some((u: any) => u.txid === paid.txid)).to.equal(false)
        const seen = await adapter.transferTo(paid.txid, vault, BTC)
        expect(seen).to.include({ txHash: paid.txid, amount: 777_000n, blockNumber: BigInt(ledger().heightOf(paid.txid)!) })
        expect(await adapter.transferTo(paid.txid, regtestAddress(), BTC), 'paid nothing there').to.equal(undefined)
        // Give the vault back a float for the tests after this one.
        ledger().fund(vault, 50_000_000n)
        ledger().mine(1)
    })

    it('rebroadcasts the same bytes any number of times without paying twice', async function () {
        const recipient = regtestAddress()
        const signed = await adapter.signTransfer({ from: VAULT, to: recipient, asset: BTC, amount: 75_000n }, [])
        expect(await adapter.broadcast(signed.raw)).to.deep.equal({ kind: 'accepted' })
        const pooled = ledger().mempool.size
        expect(await adapter.broadcast(signed.raw)).to.deep.equal({ kind: 'accepted' })
        expect(ledger().mempool.size).to.equal(pooled)
        ledger().mine(1)
        expect(await adapter.broadcast(signed.raw)).to.deep.equal({ kind: 'accepted' }) // "already in utxo set"
        // A restarted process knows nothing of it and still gets the same answer.
        const restarted = new BitcoinAdapter(config, keys)
        expect(await restarted.broadcast(signed.raw)).to.deep.equal({ kind: 'accepted' })
        ledger().mine(1)
        expect(await utxosOf(recipient)).to.deep.equal([{ txid: signed.hash, vout: 0, value: 75_000, status: JSON.parse((await get(regtest, `/tx/${signed.hash}/status`)).text) }])
        expect(await restarted.inspect({ hash: signed.hash, from: signed.from, nonce: null }, { confirmations: 2 })).to.deep.include({ kind: 'confirmed', final: true, confirmations: 2 })
    })

    it('counts a transfer dead only once a conflicting spend is final, and replaces one only by spending its inputs', async function () {
        const vault = await adapter.deriveAddress(VAULT)
        const recipient = regtestAddress()
        const first = await adapter.signTransfer({ from: VAULT, to: recipient, asset: BTC, amount: 60_000n }, [])
        const ref = (s: SignedTransfer, raw?: string) => ({ hash: s.hash, from: vault, nonce: null, raw })
        // Signed, never sent: it could still land.
        expect(await adapter.inspect(ref(first), MINED)).to.deep.equal({ kind: 'missing' })
        const restarted = new BitcoinAdapter(config, keys)
        expect(await restarted.inspect(ref(first), MINED)).to.deep.equal({ kind: 'missing' })
        const landing = await restarted.landing(first.raw)
        expect(landing.state).to.equal('can-land')
        expect(landing.inputs.every((i) => i.state.kind === 'unspent')).to.equal(true)

        // Another process signs the same payout again: it must spend the first one's inputs. At the
        // same fee rate that is the very same transaction (deterministic signatures, RFC 6979).
        const request = { from: VAULT, to: recipient, asset: BTC, amount: 60_000n, replaces: [first.raw] }
        expect((await restarted.signTransfer(request, [])).hash).to.equal(first.hash)
        const estimates = ledger().feeEstimates
        ledger().feeEstimates = { ...estimates, '3': 12.5 }
        const second = await restarted.signTransfer(request, []).finally(() => (ledger().feeEstimates = estimates))
        const inputsOf = (raw: string) => bitcoin.Transaction.fromHex(raw).ins.map((i) => `${Buffer.from(i.hash).reverse().toString('hex')}:${i.index}`)
        expect(second.hash).to.not.equal(first.hash)
        expect(inputsOf(second.raw)).to.include.members(inputsOf(first.raw))
        expect(await restarted.broadcast(second.raw)).to.deep.equal({ kind: 'accepted' })
        // The first now conflicts with a transaction in the mempool: not an answer for good.
        const late = await adapter.broadcast(first.raw)
        expect(late.kind).to.equal('uncertain')
        expect(await adapter.inspect(ref(first, first.raw), MINED)).to.deep.equal({ kind: 'missing' })
        ledger().mine(1)
        // Dead once the conflicting spend is as deep as the finality asked for.
        expect(await adapter.inspect(ref(first, first.raw), { confirmations: 2 })).to.deep.equal({ kind: 'missing' })
        expect(await adapter.inspect(ref(first, first.raw), MINED)).to.deep.equal({ kind: 'dead' })
        expect(await adapter.broadcast(first.raw)).to.deep.include({ kind: 'rejected', insufficientFunds: false })
        expect(await utxosOf(recipient)).to.have.length(1)

        // A pending transfer stuck at a low fee is bumped by a replacement that outbids it.
        const bumped = regtestAddress()
        const slow = await adapter.signTransfer({ from: VAULT, to: bumped, asset: BTC, amount: 70_000n }, [])
        expect(await adapter.broadcast(slow.raw)).to.deep.equal({ kind: 'accepted' })
        ledger().feeEstimates = { ...estimates, '3': 30.5 }
        try {
            const fast = await adapter.signTransfer({ from: VAULT, to: bumped, asset: BTC, amount: 70_000n, replaces: [slow.raw] }, [])
            expect(inputsOf(fast.raw)).to.include.members(inputsOf(slow.raw))
            expect(await adapter.broadcast(fast.raw)).to.deep.equal({ kind: 'accepted' })
            expect(ledger().mempool.has(fast.hash)).to.equal(true)
            expect(ledger().mempool.has(slow.hash)).to.equal(false)
            const [slowFee, fastFee] = [slow, fast].map((s) => ledger().txs.get(s.hash)?.fee)
            expect(slowFee).to.equal(undefined) // evicted
            expect(fastFee! >= feeFor(bitcoin.Transaction.fromHex(fast.raw).virtualSize(), 30_500n)).to.equal(true)
            ledger().mine(1)
            expect(await utxosOf(bumped)).to.have.length(1)
            expect(await adapter.inspect(ref(slow, slow.raw), MINED)).to.deep.equal({ kind: 'dead' })
            let replaced: unknown
            await adapter.signTransfer({ from: VAULT, to: bumped, asset: BTC, amount: 70_000n, replaces: [fast.raw] }, []).catch((err) => (replaced = err))
            expect(replaced).to.be.instanceOf(ReplacementError)
        } finally {
            ledger().feeEstimates = estimates
        }
    })

    it('is refused by the double when a signature is tampered with, and the double refuses fee-less and double spends', async function () {
        const signed = await adapter.signTransfer({ from: VAULT, to: regtestAddress(), asset: BTC, amount: 80_000n }, [])
        const tx = bitcoin.Transaction.fromHex(signed.raw)
        const signature = Uint8Array.from(tx.ins[0].witness[0])
        signature[10] ^= 0x01
        tx.setWitness(0, [signature, tx.ins[0].witness[1]])
        const pooled = ledger().mempool.size
        const refused = await adapter.broadcast(tx.toHex())
        expect(refused.kind).to.equal('rejected')
        expect((refused as { reason: string }).reason).to.match(/^mandatory-script-verify-flag-failed \(Signature must be zero/)
        const direct = await fetch(regtest.url + '/tx', { method: 'POST', body: tx.toHex() })
        expect(direct.status).to.equal(400)
        expect(await direct.text()).to.match(/^sendrawtransaction RPC error: \{"code":-26,"message":"mandatory-script-verify-flag-failed/)
        expect(ledger().mempool.size).to.equal(pooled)
        // The genuine bytes were not harmed by the forgery.
        expect(await adapter.broadcast(signed.raw)).to.deep.equal({ kind: 'accepted' })

        // A key that does not hash to the output's program cannot spend it, even with a valid signature of its own.
        const thief = ECPair.makeRandom({ network: bitcoin.networks.regtest })
        const stolen = bitcoin.Transaction.fromHex(signed.raw)
        stolen.outs[0].value -= 1n
        const code = bitcoin.payments.p2pkh({ pubkey: thief.publicKey }).output!
        stolen.ins.forEach((_, i) => {
            const prev = ledger().output(Buffer.from(stolen.ins[i].hash).reverse().toString('hex'), stolen.ins[i].index)!
            const hash = stolen.hashForWitnessV0(i, code, prev.value, bitcoin.Transaction.SIGHASH_ALL)
            stolen.setWitness(i, [bitcoin.script.signature.encode(thief.sign(hash), bitcoin.Transaction.SIGHASH_ALL), thief.publicKey])
        })
        expect(await adapter.broadcast(stolen.toHex())).to.deep.include({ kind: 'rejected' })
        ledger().mine(1)

        // Fee-less, then a double spend: straight to the double with a key of the test's own.
        const key = ECPair.makeRandom({ network: bitcoin.networks.regtest })
        const own = bitcoin.payments.p2wpkh({ pubkey: key.publicKey, network: bitcoin.networks.regtest })
        const funded = ledger().fund(own.address!, 100_000n)
        ledger().mine(1)
        const spend = (to: string, value: bigint) => {
            const t = new bitcoin.Transaction()
            t.version = 2
            t.addInput(Uint8Array.from(Buffer.from(funded.txid, 'hex').reverse()), funded.vout, 0xfffffffd)
            t.addOutput(bitcoin.address.toOutputScript(to, bitcoin.networks.regtest), value)
            const hash = t.hashForWitnessV0(0, bitcoin.payments.p2pkh({ pubkey: key.publicKey }).output!, 100_000n, bitcoin.Transaction.SIGHASH_ALL)
            t.setWitness(0, [bitcoin.script.signature.encode(key.sign(hash), bitcoin.Transaction.SIGHASH_ALL), key.publicKey])
            return t.toHex()
        }
        const post = async (raw: string) => {
            const response = await fetch(regtest.url + '/tx', { method: 'POST', body: raw })
            return { status: response.status, text: await response.text() }
        }
        // The minimum is the size at 1 sat/vB, and the size moves with the signature's length (70-72 bytes for a random key).
        const feeless = spend(regtestAddress(), 100_000n)
        expect(await post(feeless)).to.deep.equal({
            status: 400, text: `sendrawtransaction RPC error: {"code":-26,"message":"min relay fee not met, 0 < ${bitcoin.Transaction.fromHex(feeless).virtualSize()}"}`,
        })
        const once = spend(regtestAddress(), 99_000n)
        expect((await post(once)).status).to.equal(200)
        const twice = await post(spend(regtestAddress(), 99_000n))
        expect(twice.status).to.equal(400)
        expect(twice.text).to.match(/insufficient fee, rejecting replacement/)
        ledger().mine(1)
        expect(await post(spend(regtestAddress(), 98_000n))).to.deep.equal({
            status: 400, text: 'sendrawtransaction RPC error: {"code":-25,"message":"bad-txns-inputs-missingorspent"}',
        })
    })

    it('does not see a deposit made on another network, and will not pay an address of one', async function () {
        const regtestDeposit = await adapter.deriveAddress(deposit(20))
        // The same key's testnet address: same coin type (1), same script, another network.
        const script = bitcoin.address.toOutputScript(regtestDeposit, bitcoin.networks.regtest)
        const testnetDeposit = bitcoin.address.fromOutputScript(script, bitcoin.networks.testnet)
        expect(testnetDeposit).to.match(/^tb1q/)
        const head = await adapter.head()
        const { txid } = testnet.ledger.fund(testnetDeposit, 250_000n)
        testnet.ledger.mine(1)
        ledger().mine(1)
        const tip = (await adapter.head()).number
        expect(await adapter.scanDeposits([{ swapId: 'swap-20', address: regtestDeposit, asset: BTC, fromBlock: head.number }], head.number, tip)).to.deep.equal([])
        expect(adapter.normalizeAddress(testnetDeposit)).to.equal(undefined)
        expect(await adapter.scanDeposits([{ swapId: 'swap-20', address: testnetDeposit, asset: BTC, fromBlock: head.number }], head.number, tip)).to.deep.equal([])
        let refused: Error | undefined
        await adapter.signTransfer({ from: VAULT, to: testnetDeposit, asset: BTC, amount: 10_000n }, []).catch((err) => (refused = err))
        expect(refused?.message).to.equal(`not a regtest Bitcoin address: ${testnetDeposit}`)
        // A regtest adapter pointed at a testnet backend refuses to start.
        let wrong: Error | undefined
        await new BitcoinAdapter({ ...config, backend: { kind: 'esplora', url: testnet.url } }, keys).checkNetwork().catch((err) => (wrong = err))
        expect(wrong?.message).to.equal('BITCOIN: the backend serves testnet3, expected regtest')
        // On its own network the deposit is there.
        const onTestnet = new BitcoinAdapter(defaultBitcoinConfig('testnet', { kind: 'esplora', url: testnet.url }), keys)
        await onTestnet.checkNetwork()
        const testnetTip = (await onTestnet.head()).number
        const seen = await onTestnet.scanDeposits([{ swapId: 'swap-20', address: testnetDeposit, asset: BTC, fromBlock: 0n }], 0n, testnetTip)
        expect(seen.map((d) => [d.txHash, d.amount])).to.deep.equal([[txid, 250_000n]])
    })
})

/**
 * The same adapter over Bitcoin Core's JSON-RPC (a double of Core's RPC over the same kind of
 * ledger): addresses go into a watch-only descriptor wallet, amounts arrive as BTC decimals.
 */
describe('bitcoin: the adapter over a Bitcoin Core JSON-RPC double', function () {
    let pool: Pool
    let keys: KeyManager
    let ledger: Ledger
    let core: CoreRpcServer
    let adapter: BitcoinAdapter
    let config: BitcoinConfig

    before(async function () {
        const databaseUrl = await createTestDatabase('bridge_bitcoin_core')
        await applyMigrations(databaseUrl)
        pool = new Pool({ connectionString: databaseUrl, max: 4 })
        keys = new KeyManager(pool, MASTER_KEY)
        await keys.init(['bitcoin'])
        ledger = new Ledger('regtest')
        core = await new CoreRpcServer(ledger, { user: 'bridge', password: 'hunter2' }).start()
        config = defaultBitcoinConfig('regtest', { kind: 'bitcoind', url: core.url, username: 'bridge', password: 'hunter2', wallet: 'bridge-watch' })
        adapter = new BitcoinAdapter(config, keys)
    })

    after(async function () {
        await core?.close()
        await pool?.end()
    })

    it('checks the network, imports deposit addresses into its wallet and sees deposits with their depth', async function () {
        await adapter.checkNetwork()
        expect(await adapter.feeRate()).to.equal(RATE)
        const head = await adapter.head()
        expect(head.number).to.equal(BigInt(ledger.tipHeight))
        const address = await adapter.deriveAddress(deposit(1))
        // Without an address index, Core sees only what its wallet watches.
        const unwatched = bitcoin.payments.p2wpkh({ hash: randomBytes(20), network: bitcoin.networks.regtest }).address!
        const { txid } = ledger.fund(address, 2_000_000n)
        ledger.fund(unwatched, 2_000_000n)
        ledger.mine(1)
        const tip = (await adapter.head()).number
        const [seen, ...rest] = await adapter.scanDeposits([
            { swapId: 'a', address, asset: BTC, fromBlock: head.number },
            { swapId: 'b', address: unwatched, asset: BTC, fromBlock: head.number },
        ], head.number, tip)
        expect(rest).to.deep.equal([])
        expect(seen).to.deep.include({ swapId: 'a', txHash: txid, amount: 2_000_000n, blockNumber: tip, blockHash: ledger.tip.hash })
        expect(await adapter.checkDeposit({ ...seen, amount: seen.amount }, config.finality)).to.deep.equal({ state: 'pending', confirmations: 1 })
        ledger.mine(1)
        expect(await adapter.checkDeposit({ ...seen, amount: seen.amount }, config.finality)).to.deep.equal({ state: 'final', confirmations: 2 })
        let wrong: Error | undefined
        await new BitcoinAdapter({ ...config, backend: { ...config.backend, password: 'nope' } as BitcoinConfig['backend'] }, keys).head().catch((err) => (wrong = err))
        expect(wrong?.message).to.match(/HTTP 401/)
    })

    it('gathers, pays out with change, rebroadcasts the same bytes, and finds a replaced transfer dead', async function () {
        const vault = await adapter.deriveAddress(VAULT)
        const gather = await adapter.signTransfer({ from: deposit(1), to: vault, asset: BTC, amount: 'all' }, [])
        expect(gather.amount).to.equal(2_000_000n - feeFor(110, RATE))
        expect(await adapter.broadcast(gather.raw)).to.deep.equal({ kind: 'accepted' })
        expect(await adapter.broadcast(gather.raw)).to.deep.equal({ kind: 'accepted' })
        expect(await adapter.inspect({ hash: gather.hash, from: gather.from, nonce: null }, MINED)).to.deep.equal({ kind: 'pending' })
        ledger.mine(1)
        expect(await adapter.inspect({ hash: gather.hash, from: gather.from, nonce: null }, MINED)).to.deep.include({ kind: 'confirmed', final: true })
        expect(await adapter.broadcast(gather.raw)).to.deep.equal({ kind: 'accepted' })
        expect(await adapter.balance(vault, BTC)).to.equal(gather.amount)

        const recipient = bitcoin.payments.p2wpkh({ hash: randomBytes(20), network: bitcoin.networks.regtest }).address!
        const first = await adapter.signTransfer({ from: VAULT, to: recipient, asset: BTC, amount: 500_000n }, [])
        const tx = bitcoin.Transaction.fromHex(first.raw)
        expect(tx.outs.map((o) => bitcoin.address.fromOutputScript(o.script, bitcoin.networks.regtest))).to.deep.equal([recipient, vault])
        // A restarted process re-signs it at a higher fee, spending the same inputs; the first can then never land.
        const restarted = new BitcoinAdapter(config, keys)
        const estimates = ledger.feeEstimates
        ledger.feeEstimates = { ...estimates, '3': 14 }
        const second = await restarted.signTransfer({ from: VAULT, to: recipient, asset: BTC, amount: 500_000n, replaces: [first.raw] }, [])
        ledger.feeEstimates = estimates
        expect(await restarted.broadcast(second.raw)).to.deep.equal({ kind: 'accepted' })
        expect((await adapter.broadcast(first.raw)).kind).to.equal('uncertain')
        ledger.mine(1)
        expect(await adapter.inspect({ hash: first.hash, from: vault, nonce: null, raw: first.raw }, MINED)).to.deep.equal({ kind: 'dead' })
        expect(await adapter.broadcast(first.raw)).to.deep.include({ kind: 'rejected' })
        expect(ledger.unspentOf(bitcoin.address.toOutputScript(recipient, bitcoin.networks.regtest)).map((o) => o.value)).to.deep.equal([500_000n])
        expect(await adapter.balance(vault, BTC)).to.equal(gather.amount - 500_000n - ledger.txs.get(second.hash)!.fee)
    })
})
