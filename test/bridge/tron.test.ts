import { mnemonicToSeedSync } from '@scure/bip39'
import { expect } from 'chai'
import { randomBytes } from 'crypto'
import { Pool } from 'pg'
import { TronWeb } from 'tronweb'
import { InsufficientForFeeError, SignedTransfer } from '../../bridge/chains/adapter'
import { TronAdapter } from '../../bridge/chains/tron/adapter'
import { hexAddress } from '../../bridge/chains/tron/address'
import { defaultTronConfig, TronConfig } from '../../bridge/chains/tron/config'
import { USDT_ENERGY_TO_HOLDER, USDT_ENERGY_TO_NEW_HOLDER } from '../../bridge/chains/tron/fees'
import { decodeStored } from '../../bridge/chains/tron/transaction'
import { Asset } from '../../bridge/config'
import { KeyManager } from '../../bridge/keys'
import { Sealer } from '../../common/sealing'
import { tokenSpec } from '../../bridge/registry'
import { applyMigrations } from '../../db/migrate'
import { BLOCK_MS, SOLIDIFY_DEPTH } from '../../devnet/tron/ledger'
import { startTronNode, TronNode } from '../../devnet/tron/server'
import { createTestDatabase } from '../support/postgres'

const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'
const MASTER_KEY = '55'.repeat(32)
const API_KEY = 'test-api-key'
const TRX: Asset = { ...tokenSpec('TRON', 'TRX')!, chain: 'TRON', family: 'tron' }
const USDT: Asset = { ...tokenSpec('TRON', 'USDT')!, chain: 'TRON', family: 'tron' }
const SOLIDIFIED = { tag: 'finalized' as const }
const ENERGY_PRICE = 100n
const NEW_ACCOUNT_FEES = 1_100_000n
const deposit = (index: number) => ({ kind: 'deposit' as const, index })
const VAULT = { kind: 'vault' as const }

/**
 * The TRON adapter, signing included, against the local TRON network's java-tron / TronGrid HTTP API
 * (devnet/tron), which checks every broadcast's signature, TAPOS, expiration and
 * resources: keys from the sealed seed, deposits of both assets by block range and finality,
 * reorgs, payouts and their fees, the USDT gather after a TRX top-up, same-bytes rebroadcast, the
 * expiration rule of 'dead', OUT_OF_ENERGY.
 */
describe('tron: the adapter against the local java-tron / TronGrid API', function () {
    let pool: Pool
    let keys: KeyManager
    let double: TronNode
    let adapter: TronAdapter
    let config: TronConfig
    let vault: string

    const ledger = () => double.ledger
    const stranger = () => TronWeb.address.fromHex('41' + randomBytes(20).toString('hex'))
    const watch = (swapId: string, address: string, asset: Asset, fromBlock = 0n) => ({ swapId, address, asset, fromBlock })
    const headNumber = async () => (await adapter.head()).number
    /** What the chain charged a transaction, by the double's receipt. */
    const charged = (hash: string) => ledger().landed.get(hash)!
    const send = async (signed: SignedTransfer) => {
        expect(await adapter.broadcast(signed.raw)).to.deep.equal({ kind: 'accepted' })
        ledger().mine()
    }
    const solidify = () => ledger().mine(SOLIDIFY_DEPTH)

    before(async function () {
        const databaseUrl = await createTestDatabase('bridge_tron')
        await applyMigrations(databaseUrl)
        pool = new Pool({ connectionString: databaseUrl, max: 4 })
        const seed = Buffer.from(mnemonicToSeedSync(MNEMONIC))
        const { iv, ciphertext } = new Sealer(MASTER_KEY, 'bridge-seed-v1').seal(seed, 'bridge_key_seed:tron')
        await pool.query('INSERT INTO bridge_key_seed (family, iv, ciphertext) VALUES ($1, $2, $3)', ['tron', iv, ciphertext])
        keys = new KeyManager(pool, MASTER_KEY)
        await keys.init(['tron'])
        double = await startTronNode({ apiKey: API_KEY, energyPrice: ENERGY_PRICE })
        config = { ...defaultTronConfig(double.url), apiKey: API_KEY, usdtContract: ledger().usdt }
        adapter = new TronAdapter(config, keys)
        vault = await adapter.deriveAddress(VAULT)
        ledger().fundTrx(vault, 10_000_000_000n)
        ledger().fundUsdt(vault, 1_000_000_000n)
        solidify()
    })

    after(async function () {
        await double?.close()
        await pool?.end()
    })

    it('derives deposit keys at m/44\'/195\'/0\'/0/i from the sealed tron seed, the vault apart; checks the node serves the USDT contract', async function () {
        expect(await adapter.deriveAddress(deposit(0))).to.equal('TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH')
        expect(vault).to.not.equal(await adapter.deriveAddress(deposit(0)))
        expect(adapter.normalizeAddress(vault)).to.equal(vault)
        expect(adapter.normalizeAddress(hexAddress(vault))).to.equal(undefined)
        expect(adapter.chain).to.equal('TRON')
        expect(adapter.family).to.equal('tron')
        await adapter.checkNetwork()
        // Mainnet's USDT address on a node that has no contract there (a testnet, say): a configuration error.
        let wrong: Error | undefined
        await new TronAdapter({ ...config, usdtContract: vault }, keys).checkNetwork().catch((err) => (wrong = err))
        expect(wrong?.message).to.match(/TRON_USDT_CONTRACT .* is not a token/)
        const head = await adapter.head()
        expect(head.number).to.equal(BigInt(ledger().head.number))
        expect(head.time.getTime()).to.equal(ledger().head.timestamp)
    })

    it('finds TRX and USDT deposits within the scanned blocks only, each watch its own asset', async function () {
        const trxAddress = await adapter.deriveAddress(deposit(10))
        const usdtAddress = await adapter.deriveAddress(deposit(11))
        const from = await headNumber()
        const trxTx = ledger().fundTrx(trxAddress, 25_000_000n)
        const usdtTx = ledger().fundUsdt(usdtAddress, 12_345_678n)
        // The other asset to each address: not what either watch counts.
        ledger().fundUsdt(trxAddress, 5_000_000n)
        ledger().fundTrx(usdtAddress, 3_000_000n)
        // Money to an address nobody watches, and from a watched address: not deposits.
        ledger().fundTrx(stranger(), 1_000_000n)
        const head = await headNumber()
        const watches = [watch('trx', trxAddress, TRX, from), watch('usdt', usdtAddress, USDT, from)]
        const seen = await adapter.scanDeposits(watches, from, head)
        expect(seen.map((d) => [d.swapId, d.txHash, d.amount])).to.deep.equal([['trx', trxTx, 25_000_000n], ['usdt', usdtTx, 12_345_678n]])
        const block = ledger().blocks[Number(seen[0].blockNumber)]
        expect(seen[0]).to.include({ blockHash: block.id })
        expect(seen[0].blockTime.getTime()).to.equal(block.timestamp)
        expect(seen[1].blockNumber).to.equal(seen[0].blockNumber + 1n)
        // Outside the range, or before the swap existed: not this swap's deposit.
        expect(await adapter.scanDeposits(watches, from, seen[0].blockNumber - 1n)).to.deep.equal([])
        expect(await adapter.scanDeposits(watches, seen[1].blockNumber + 1n, head)).to.deep.equal([])
        expect((await adapter.scanDeposits(watches, seen[1].blockNumber, seen[1].blockNumber)).map((d) => d.swapId)).to.deep.equal(['usdt'])
        expect(await adapter.scanDeposits([watch('trx', trxAddress, TRX, head + 1n)], from, head)).to.deep.equal([])
        // A hex address is not a TRON deposit address: nothing is looked up for it.
        expect(await adapter.scanDeposits([watch('hex', hexAddress(trxAddress), TRX, from)], from, head)).to.deep.equal([])
        // The gather out of the address is not a deposit into it.
        const swept = await adapter.signTransfer({ from: deposit(10), to: vault, asset: TRX, amount: 'all' }, [])
        await send(swept)
        const after = await adapter.scanDeposits([watch('trx', trxAddress, TRX, from)], from, await headNumber())
        expect(after.map((d) => d.txHash)).to.deep.equal([trxTx])
        expect(double.calls).to.include.members([
            `/v1/accounts/${trxAddress}/transactions`, `/v1/accounts/${usdtAddress}/transactions/trc20`, '/wallet/gettransactioninfobyid', '/wallet/getblockbynum',
        ])
        expect([...double.apiKeys]).to.deep.equal([API_KEY])
    })

    it('a TRX gather of the credited deposit only leaves an extra deposit at the address', async function () {
        const address = await adapter.deriveAddress(deposit(15))
        ledger().fundTrx(address, 20_000_000n)
        ledger().fundTrx(address, 6_000_000n)
        const vaultBefore = await adapter.balance(vault, TRX)
        const swept = await adapter.signTransfer({ from: deposit(15), to: vault, asset: TRX, amount: 'all', only: { amount: 20_000_000n, txHash: null } }, [])
        await send(swept)
        // What the sweep burned came out of the credited 20 TRX; the extra 6 TRX stay for their own refund.
        expect(swept.amount <= 20_000_000n).to.equal(true)
        expect(await adapter.balance(vault, TRX)).to.equal(vaultBefore + swept.amount)
        // At least the extra is left (a burn below the estimate leaves its difference too).
        expect(await adapter.balance(address, TRX) >= 6_000_000n).to.equal(true)
    })

    it('calls a deposit final once its block is solidified, or at the configured confirmations', async function () {
        const address = await adapter.deriveAddress(deposit(12))
        const from = await headNumber()
        ledger().fundUsdt(address, 40_000_000n)
        const [seen] = await adapter.scanDeposits([watch('s12', address, USDT, from)], from, await headNumber())
        expect(await adapter.checkDeposit(seen, SOLIDIFIED)).to.deep.equal({ state: 'pending', confirmations: 1 })
        expect(await adapter.checkDeposit(seen, { confirmations: 3 })).to.deep.equal({ state: 'pending', confirmations: 1 })
        ledger().mine(2)
        expect(await adapter.checkDeposit(seen, { confirmations: 3 })).to.deep.equal({ state: 'final', confirmations: 3 })
        ledger().mine(SOLIDIFY_DEPTH - 3)
        // One block short of the solidified height.
        expect(ledger().solidifiedNumber).to.equal(Number(seen.blockNumber) - 1)
        expect(await adapter.checkDeposit(seen, SOLIDIFIED)).to.deep.equal({ state: 'pending', confirmations: SOLIDIFY_DEPTH })
        ledger().mine()
        expect(await adapter.checkDeposit(seen, SOLIDIFIED)).to.deep.equal({ state: 'final', confirmations: SOLIDIFY_DEPTH + 1 })
        expect(await adapter.checkDeposit({ ...seen, txHash: null }, SOLIDIFIED)).to.deep.equal({ state: 'final', confirmations: SOLIDIFY_DEPTH + 1 })
    })

    it('calls a deposit orphaned when a reorg drops it, moved when the new fork holds it elsewhere', async function () {
        const address = await adapter.deriveAddress(deposit(13))
        const from = await headNumber()
        ledger().fundTrx(address, 15_000_000n)
        const [seen] = await adapter.scanDeposits([watch('s13', address, TRX, from)], from, await headNumber())
        expect(seen.amount).to.equal(15_000_000n)
        ledger().mine(2)
        ledger().drop(Number(seen.blockNumber))
        ledger().mine(3)
        expect(await adapter.checkDeposit(seen, SOLIDIFIED)).to.deep.equal({ state: 'orphaned' })
        expect(await adapter.checkDeposit({ ...seen, txHash: null }, SOLIDIFIED)).to.deep.equal({ state: 'orphaned' })
        expect(await adapter.scanDeposits([watch('s13', address, TRX, from)], from, await headNumber())).to.deep.equal([])
        expect(await adapter.balance(address, TRX)).to.equal(0n)

        const other = await adapter.deriveAddress(deposit(14))
        const start = await headNumber()
        ledger().fundTrx(other, 16_000_000n)
        const [first] = await adapter.scanDeposits([watch('s14', other, TRX, start)], start, await headNumber())
        ledger().drop(Number(first.blockNumber), { requeue: true })
        ledger().mine()
        const replaced = ledger().blocks[Number(first.blockNumber)]
        expect(replaced.id).to.not.equal(first.blockHash)
        expect(await adapter.checkDeposit(first, SOLIDIFIED)).to.deep.equal({ state: 'moved', blockNumber: first.blockNumber, blockHash: replaced.id })
        const [again] = await adapter.scanDeposits([watch('s14', other, TRX, start)], start, await headNumber())
        expect(again).to.include({ txHash: first.txHash, amount: 16_000_000n, blockHash: replaced.id })
    })

    it('pays TRX out from the vault: a new recipient costs the account creation fees, an existing one bandwidth', async function () {
        const to = stranger()
        const before = await adapter.balance(vault, TRX)
        const quote = await adapter.transferFee(TRX, vault, to)
        const signed = await adapter.signTransfer({ from: VAULT, to, asset: TRX, amount: 7_000_000n }, [])
        expect(signed).to.include({ from: vault, nonce: null, amount: 7_000_000n })
        expect(signed.hash).to.match(/^[0-9a-f]{64}$/)
        expect(await adapter.broadcast(signed.raw)).to.deep.equal({ kind: 'accepted' })
        expect(await adapter.inspect(signed, SOLIDIFIED)).to.deep.equal({ kind: 'pending' })
        ledger().mine()
        expect(await adapter.inspect(signed, SOLIDIFIED)).to.include({ kind: 'confirmed', final: false, confirmations: 1 })
        solidify()
        const done = await adapter.inspect(signed, SOLIDIFIED)
        expect(done).to.include({ kind: 'confirmed', final: true })
        expect(done).to.have.property('blockNumber', BigInt(charged(signed.hash).block!))
        expect(charged(signed.hash).fee).to.equal(NEW_ACCOUNT_FEES)
        expect(quote >= NEW_ACCOUNT_FEES).to.equal(true)
        expect(await adapter.balance(to, TRX)).to.equal(7_000_000n)
        expect(await adapter.balance(vault, TRX)).to.equal(before - 7_000_000n - NEW_ACCOUNT_FEES)

        // The recipient exists now; the vault's free bandwidth is spent, so bandwidth is burned.
        ledger().useFreeBandwidth(vault)
        const quote2 = await adapter.transferFee(TRX, vault, to)
        expect(quote2 < quote).to.equal(true)
        const second = await adapter.signTransfer({ from: VAULT, to, asset: TRX, amount: 1_000_000n }, [])
        await send(second)
        const { fee, netFee, bytes } = charged(second.hash)
        expect(fee).to.equal(BigInt(bytes) * 1_000n)
        expect(netFee).to.equal(fee)
        expect(quote2 >= fee).to.equal(true)
        expect(await adapter.balance(to, TRX)).to.equal(8_000_000n)
        expect(await adapter.balance(vault, TRX)).to.equal(before - 8_000_000n - NEW_ACCOUNT_FEES - fee)
    })

    it('pays USDT out from the vault, burning the energy its recipient\'s state calls for', async function () {
        const to = stranger()
        const trxBefore = await adapter.balance(vault, TRX)
        const usdtBefore = await adapter.balance(vault, USDT)
        const quote = await adapter.transferFee(USDT, vault, to)
        const signed = await adapter.signTransfer({ from: VAULT, to, asset: USDT, amount: 50_000_000n }, [])
        await send(signed)
        expect(await adapter.inspect(signed, { confirmations: 1 })).to.include({ kind: 'confirmed', final: true })
        const first = charged(signed.hash)
        expect(first).to.include({ contractRet: 'SUCCESS', energyUsage: USDT_ENERGY_TO_NEW_HOLDER, energyFee: USDT_ENERGY_TO_NEW_HOLDER * ENERGY_PRICE })
        expect(quote >= first.fee).to.equal(true)
        expect(await adapter.balance(to, USDT)).to.equal(50_000_000n)
        expect(await adapter.balance(vault, USDT)).to.equal(usdtBefore - 50_000_000n)
        expect(await adapter.balance(vault, TRX)).to.equal(trxBefore - first.fee)
        // A TRC-20 transfer creates no account: the recipient holds USDT and no TRX account.
        expect(await adapter.balance(to, TRX)).to.equal(0n)
        expect(await adapter.transferFee(TRX, vault, to)).to.equal(await adapter.transferFee(TRX, vault, stranger()))

        const quote2 = await adapter.transferFee(USDT, vault, to)
        expect(quote2 < quote).to.equal(true)
        const second = await adapter.signTransfer({ from: VAULT, to, asset: USDT, amount: 1_000_000n }, [])
        await send(second)
        expect(charged(second.hash)).to.include({ contractRet: 'SUCCESS', energyUsage: USDT_ENERGY_TO_HOLDER })
        expect(quote2 >= charged(second.hash).fee).to.equal(true)
        expect(await adapter.balance(to, USDT)).to.equal(51_000_000n)
        expect(await adapter.balance(vault, TRX)).to.equal(trxBefore - first.fee - charged(second.hash).fee)
        let refused: Error | undefined
        await adapter.signTransfer({ from: VAULT, to, asset: USDT, amount: 10n ** 15n }, []).catch((err) => (refused = err))
        expect(refused?.message).to.match(/fewer than/)
    })

    it('gathers USDT from a deposit address once topped up with exactly transferFee of TRX, and refuses before', async function () {
        const address = await adapter.deriveAddress(deposit(20))
        ledger().fundUsdt(address, 99_000_000n)
        // No TRX at all (the address does not even exist as an account): the sweep cannot pay its energy.
        let refused: unknown
        await adapter.signTransfer({ from: deposit(20), to: vault, asset: USDT, amount: 99_000_000n }, []).catch((err) => (refused = err))
        expect(refused).to.be.instanceOf(InsufficientForFeeError)
        const fee = await adapter.transferFee(USDT, address, vault)
        expect(fee).to.equal(USDT_ENERGY_TO_HOLDER * ENERGY_PRICE + 360_000n)
        // The engine's gather step: the vault tops the address up, then the address sweeps its whole token balance.
        const vaultTrx = await adapter.balance(vault, TRX)
        const topUp = await adapter.signTransfer({ from: VAULT, to: address, asset: TRX, amount: fee }, [])
        await send(topUp)
        expect(await adapter.inspect(topUp, { confirmations: 1 })).to.include({ kind: 'confirmed' })
        expect(await adapter.balance(address, TRX)).to.equal(fee)
        expect(await adapter.balance(vault, TRX)).to.equal(vaultTrx - fee - NEW_ACCOUNT_FEES)
        const vaultUsdt = await adapter.balance(vault, USDT)
        const gather = await adapter.signTransfer({ from: deposit(20), to: vault, asset: USDT, amount: await adapter.balance(address, USDT) }, [])
        expect(gather).to.include({ from: address, amount: 99_000_000n })
        await send(gather)
        expect(await adapter.inspect(gather, { confirmations: 1 })).to.include({ kind: 'confirmed', final: true })
        expect(charged(gather.hash)).to.include({ contractRet: 'SUCCESS', energyFee: USDT_ENERGY_TO_HOLDER * ENERGY_PRICE, netFee: 0n })
        expect(await adapter.balance(address, USDT)).to.equal(0n)
        expect(await adapter.balance(vault, USDT)).to.equal(vaultUsdt + 99_000_000n)
        // The quote is an upper bound: the free daily bandwidth paid the bytes, their price stays behind.
        expect(await adapter.balance(address, TRX)).to.equal(fee - charged(gather.hash).fee)
    })

    it('sweeps a TRX deposit to 0 while free bandwidth lasts, less the burned bandwidth after, and refuses what cannot pay', async function () {
        const address = await adapter.deriveAddress(deposit(21))
        ledger().fundTrx(address, 30_000_000n)
        const vaultBefore = await adapter.balance(vault, TRX)
        const sweep = await adapter.signTransfer({ from: deposit(21), to: vault, asset: TRX, amount: 'all' }, [])
        expect(sweep.amount).to.equal(30_000_000n)
        await send(sweep)
        expect(charged(sweep.hash).fee).to.equal(0n)
        expect(await adapter.balance(address, TRX)).to.equal(0n)
        expect(await adapter.balance(vault, TRX)).to.equal(vaultBefore + 30_000_000n)
        let empty: unknown
        await adapter.signTransfer({ from: deposit(21), to: vault, asset: TRX, amount: 'all' }, []).catch((err) => (empty = err))
        expect(empty).to.be.instanceOf(InsufficientForFeeError)

        ledger().fundTrx(address, 200_000n)
        ledger().useFreeBandwidth(address)
        let short: unknown
        await adapter.signTransfer({ from: deposit(21), to: vault, asset: TRX, amount: 'all' }, []).catch((err) => (short = err))
        expect(short).to.be.instanceOf(InsufficientForFeeError)
        ledger().fundTrx(address, 4_800_000n)
        const paid = await adapter.signTransfer({ from: deposit(21), to: vault, asset: TRX, amount: 'all' }, [])
        await send(paid)
        expect(charged(paid.hash).fee).to.equal(BigInt(charged(paid.hash).bytes) * 1_000n)
        expect(paid.amount + charged(paid.hash).fee).to.equal(5_000_000n)
        expect(await adapter.balance(address, TRX)).to.equal(0n)
    })

    it('rebroadcasts the same bytes any number of times, before and after they land, and pays once', async function () {
        const to = stranger()
        const signed = await adapter.signTransfer({ from: VAULT, to, asset: TRX, amount: 3_000_000n }, [])
        const vaultBefore = await adapter.balance(vault, TRX)
        // The node unreachable: no answer is no refusal.
        double.refuseBroadcasts = true
        expect(await adapter.broadcast(signed.raw)).to.include({ kind: 'uncertain' })
        double.refuseBroadcasts = false
        expect(await adapter.inspect(signed, SOLIDIFIED)).to.deep.equal({ kind: 'missing' })
        for (let i = 0; i < 3; i++) expect(await adapter.broadcast(signed.raw)).to.deep.equal({ kind: 'accepted' })
        ledger().mine()
        expect(await adapter.broadcast(signed.raw)).to.deep.equal({ kind: 'accepted' })
        ledger().mine(2)
        expect(await adapter.broadcast(signed.raw)).to.deep.equal({ kind: 'accepted' })
        solidify()
        expect(await adapter.inspect(signed, SOLIDIFIED)).to.include({ kind: 'confirmed', final: true })
        expect(await adapter.balance(to, TRX)).to.equal(3_000_000n)
        expect(await adapter.balance(vault, TRX)).to.equal(vaultBefore - 3_000_000n - charged(signed.hash).fee)
        expect(ledger().history(hexAddress(to)).map((t) => t.txid)).to.deep.equal([signed.hash])
    })

    it('calls a lost transfer dead only once the solidified block\'s time passes its expiration; the new one lands once', async function () {
        const to = stranger()
        const lost = await adapter.signTransfer({ from: VAULT, to, asset: TRX, amount: 2_000_000n }, [])
        const { expiration } = decodeStored(lost.raw)
        // Never broadcast (a crash after storing): unknown, but it could still land.
        expect(await adapter.inspect(lost, SOLIDIFIED)).to.deep.equal({ kind: 'missing' })
        // Expired at the head, not yet at the solidified block: a fork could still carry it.
        while (BigInt(ledger().head.timestamp) < expiration) ledger().mine()
        expect(BigInt(ledger().blocks[ledger().solidifiedNumber].timestamp) < expiration).to.equal(true)
        expect(await adapter.inspect(lost, SOLIDIFIED)).to.deep.equal({ kind: 'missing' })
        expect(await adapter.broadcast(lost.raw)).to.include({ kind: 'uncertain' })
        ledger().mine(Math.ceil(Number(BigInt(ledger().head.timestamp) - BigInt(ledger().blocks[ledger().solidifiedNumber].timestamp)) / BLOCK_MS))
        expect(BigInt(ledger().blocks[ledger().solidifiedNumber].timestamp) >= expiration).to.equal(true)
        // A process without the signing's memory needs the stored raw form to prove it.
        const fresh = new TronAdapter(config, keys)
        expect(await fresh.inspect({ hash: lost.hash, from: lost.from, nonce: lost.nonce }, SOLIDIFIED)).to.deep.equal({ kind: 'missing' })
        expect(await fresh.inspect({ ...lost, raw: lost.raw }, SOLIDIFIED)).to.deep.equal({ kind: 'dead' })
        expect(await adapter.inspect(lost, SOLIDIFIED)).to.deep.equal({ kind: 'dead' })
        const again = await adapter.signTransfer({ from: VAULT, to, asset: TRX, amount: 2_000_000n }, [])
        expect(again.hash).to.not.equal(lost.hash)
        await send(again)
        expect(await adapter.broadcast(lost.raw)).to.include({ kind: 'uncertain' })
        ledger().mine()
        expect(await adapter.balance(to, TRX)).to.equal(2_000_000n)
        expect(ledger().history(hexAddress(to)).map((t) => t.txid)).to.deep.equal([again.hash])
    })

    it('reports an OUT_OF_ENERGY call as reverted: the fee limit burned, no USDT moved', async function () {
        const to = stranger()
        ledger().fundUsdt(to, 1n)
        const tight = new TronAdapter({ ...config, feeLimit: 10_000_000n }, keys)
        const signed = await tight.signTransfer({ from: VAULT, to, asset: USDT, amount: 4_000_000n }, [])
        const trxBefore = await adapter.balance(vault, TRX)
        const usdtBefore = await adapter.balance(vault, USDT)
        // The energy price rises between signing and broadcast: 64 285 × 420 sun is above the 10 TRX limit.
        ledger().setEnergyPrice(420n)
        try {
            await send(signed)
            const state = await tight.inspect(signed, { confirmations: 1 })
            expect(state).to.include({ kind: 'reverted', final: true, confirmations: 1 })
            const burned = charged(signed.hash)
            expect(burned).to.include({ contractRet: 'OUT_OF_ENERGY', energyFee: (10_000_000n / 420n) * 420n })
            expect(await adapter.balance(vault, TRX)).to.equal(trxBefore - burned.fee)
            expect(await adapter.balance(vault, USDT)).to.equal(usdtBefore)
            expect(await adapter.balance(to, USDT)).to.equal(1n)
            // At this price the limit cannot pay a transfer: refused at signing, nothing burned.
            let refused: Error | undefined
            await tight.signTransfer({ from: VAULT, to, asset: USDT, amount: 4_000_000n }, []).catch((err) => (refused = err))
            expect(refused?.message).to.match(/TRON_FEE_LIMIT_SUN/)
        } finally {
            ledger().setEnergyPrice(ENERGY_PRICE)
        }
    })

    it('maps the node\'s refusals: a bad signature, an account that cannot pay', async function () {
        const to = stranger()
        const signed = await adapter.signTransfer({ from: VAULT, to, asset: TRX, amount: 1_000_000n }, [])
        const tx = JSON.parse(signed.raw)
        tx.signature = [tx.signature[0].slice(0, 10) + (tx.signature[0][10] === '0' ? '1' : '0') + tx.signature[0].slice(11)]
        expect(await adapter.broadcast(JSON.stringify(tx))).to.include({ kind: 'rejected', insufficientFunds: false })
        expect(await adapter.broadcast('{"raw_data":')).to.include({ kind: 'rejected', insufficientFunds: false })
        // An amount the vault does not hold.
        const tooMuch = await adapter.signTransfer({ from: VAULT, to, asset: TRX, amount: 10n ** 15n }, [])
        const result = await adapter.broadcast(tooMuch.raw)
        expect(result).to.include({ kind: 'rejected', insufficientFunds: true })
        expect((result as { reason: string }).reason).to.match(/balance is not sufficient/)
        // A deposit address that never received TRX has no account to send from.
        const never = await adapter.signTransfer({ from: deposit(31), to, asset: TRX, amount: 1n }, [])
        const noAccount = await adapter.broadcast(never.raw)
        expect(noAccount).to.include({ kind: 'rejected', insufficientFunds: true })
        expect((noAccount as { reason: string }).reason).to.match(/no OwnerAccount/)
        // An account that can pay neither from its free bandwidth nor by burning TRX.
        const poor = await adapter.deriveAddress(deposit(32))
        ledger().fundTrx(poor, 100_000n)
        ledger().useFreeBandwidth(poor)
        const starved = await adapter.signTransfer({ from: deposit(32), to: vault, asset: TRX, amount: 50_000n }, [])
        expect(await adapter.broadcast(starved.raw)).to.include({ kind: 'rejected', insufficientFunds: true })
        ledger().mine()
        expect(await adapter.balance(to, TRX)).to.equal(0n)
        expect(await adapter.balance(poor, TRX)).to.equal(100_000n)
        for (const t of [signed, tooMuch, never, starved]) expect(await adapter.inspect(t, SOLIDIFIED)).to.deep.equal({ kind: 'missing' })
    })

    it('reads balances of both assets, zero for an address the chain has never seen', async function () {
        const address = await adapter.deriveAddress(deposit(40))
        expect(await adapter.balance(address, TRX)).to.equal(0n)
        expect(await adapter.balance(address, USDT)).to.equal(0n)
        ledger().fundTrx(address, 1_234_567n)
        ledger().fundUsdt(address, 7_654_321n)
        expect(await adapter.balance(address, TRX)).to.equal(1_234_567n)
        expect(await adapter.balance(address, USDT)).to.equal(7_654_321n)
        expect(await adapter.balance(address, { ...USDT, address: ledger().usdt as `0x${string}` })).to.equal(7_654_321n)
        let wrongToken: Error | undefined
        await adapter.balance(address, { ...USDT, address: vault as `0x${string}` }).catch((err) => (wrongToken = err))
        expect(wrongToken?.message).to.match(/TRON_USDT_CONTRACT/)
    })
})
