import { mnemonicToSeedSync } from '@scure/bip39'
import { Keypair } from '@solana/web3.js'
import bs58 from 'bs58'
import { expect } from 'chai'
import { randomBytes } from 'crypto'
import { Pool } from 'pg'
import { InsufficientForFeeError } from '../../bridge/chains/adapter'
import { RentError, SolanaAdapter } from '../../bridge/chains/solana/adapter'
import { defaultSolanaConfig } from '../../bridge/chains/solana/config'
import { decodeStored, encodeStored } from '../../bridge/chains/solana/transaction'
import { Asset } from '../../bridge/config'
import { KeyManager } from '../../bridge/keys'
import { Sealer } from '../../common/sealing'
import { tokenSpec } from '../../bridge/registry'
import { applyMigrations } from '../../db/migrate'
import { SolanaNode, startSolanaNode } from '../../devnet/solana/server'
import { createTestDatabase } from '../support/postgres'

const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'
const MASTER_KEY = '44'.repeat(32)
const SOL: Asset = { ...tokenSpec('SOLANA', 'SOL')!, chain: 'SOLANA', family: 'solana' }
const FINALIZED = { tag: 'finalized' as const }
const FEE = 5000n
const deposit = (index: number) => ({ kind: 'deposit' as const, index })
const VAULT = { kind: 'vault' as const }

/**
 * The SOLANA adapter, signing included, against LiteSVM behind a JSON-RPC front end
 * (devnet/solana, the network `npm start` runs): keys from the sealed seed, deposits at the two commitments, gathering to
 * 0, payouts and the rent rule, same-bytes rebroadcast, and re-signing only after the blockhash
 * has provably expired.
 */
describe('solana: the adapter against LiteSVM behind JSON-RPC', function () {
    let pool: Pool
    let keys: KeyManager
    let double: SolanaNode
    let adapter: SolanaAdapter
    let confirmed: SolanaAdapter

    const ledger = () => double.ledger
    const watch = (swapId: string, address: string, fromBlock = 0n) => ({ swapId, address, asset: SOL, fromBlock })
    const stranger = () => Keypair.generate().publicKey.toBase58()

    before(async function () {
        const databaseUrl = await createTestDatabase('bridge_solana')
        await applyMigrations(databaseUrl)
        pool = new Pool({ connectionString: databaseUrl, max: 4 })
        const seed = Buffer.from(mnemonicToSeedSync(MNEMONIC))
        const { iv, ciphertext } = new Sealer(MASTER_KEY, 'bridge-seed-v1').seal(seed, 'bridge_key_seed:solana')
        await pool.query('INSERT INTO bridge_key_seed (family, iv, ciphertext) VALUES ($1, $2, $3)', ['solana', iv, ciphertext])
        keys = new KeyManager(pool, MASTER_KEY)
        await keys.init(['solana'])
        double = await startSolanaNode({ confirmedDepth: 1, finalizedDepth: 32, blockhashLifetime: 150 })
        adapter = new SolanaAdapter(defaultSolanaConfig(double.url), keys)
        confirmed = new SolanaAdapter({ ...defaultSolanaConfig(double.url), commitment: 'confirmed' }, keys)
        ledger().fund(await adapter.deriveAddress(VAULT), 50_000_000_000n)
        ledger().finalize()
    })

    after(async function () {
        await double?.close()
        await pool?.end()
    })

    it('derives deposit keys at m/44\'/501\'/i\'/0\' from the sealed solana seed', async function () {
        expect(await adapter.deriveAddress(deposit(0))).to.equal('HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk')
        expect(await adapter.deriveAddress(VAULT)).to.not.equal(await adapter.deriveAddress(deposit(0)))
        expect(adapter.normalizeAddress(await adapter.deriveAddress(deposit(1)))).to.equal(await adapter.deriveAddress(deposit(1)))
        expect(adapter.chain).to.equal('SOLANA')
        expect(adapter.family).to.equal('solana')
    })

    it('sees a deposit at confirmed first and at finalized once rooted, with the amount from the balances', async function () {
        const address = await adapter.deriveAddress(deposit(10))
        const from = (await adapter.head()).number
        const signature = ledger().fund(address, 2_000_000_000n)
        ledger().advance(1)
        const atConfirmed = await confirmed.scanDeposits([watch('s10', address, from)], from, (await confirmed.head()).number)
        expect(atConfirmed).to.have.length(1)
        expect(atConfirmed[0]).to.include({ swapId: 's10', txHash: signature, amount: 2_000_000_000n })
        expect(atConfirmed[0].blockHash).to.be.a('string').and.not.equal('')
        expect(await adapter.scanDeposits([watch('s10', address, from)], from, (await adapter.head()).number)).to.deep.equal([])
        expect(await adapter.checkDeposit(atConfirmed[0], FINALIZED)).to.include({ state: 'pending' })
        expect(await confirmed.checkDeposit(atConfirmed[0], { tag: 'safe' })).to.include({ state: 'final' })
        ledger().finalize()
        const head = await adapter.head()
        expect(head.number >= atConfirmed[0].blockNumber).to.equal(true)
        const atFinalized = await adapter.scanDeposits([watch('s10', address, from)], from, head.number)
        expect(atFinalized).to.deep.equal(atConfirmed.map((d) => ({ ...d })))
        expect(await adapter.checkDeposit(atFinalized[0], FINALIZED)).to.include({ state: 'final' })
        // Outside the range, or before the swap existed: not this swap's deposit.
        expect(await adapter.scanDeposits([watch('s10', address, head.number + 1n)], from, head.number)).to.deep.equal([])
        expect(await adapter.scanDeposits([watch('s10', address)], from, atFinalized[0].blockNumber - 1n)).to.deep.equal([])
        // A signature the chain does not hold (a fork that lost): no longer in the chain.
        expect(await adapter.checkDeposit({ ...atFinalized[0], txHash: bs58.encode(randomBytes(64)) }, FINALIZED)).to.deep.equal({ state: 'orphaned' })
        expect(await adapter.balance(address, SOL)).to.equal(2_000_000_000n)
    })

    it('gathers a deposit account down to 0: the vault receives the total less the fee', async function () {
        const address = await adapter.deriveAddress(deposit(11))
        const vault = await adapter.deriveAddress(VAULT)
        ledger().fund(address, 1_234_567_890n)
        ledger().finalize()
        const vaultBefore = await adapter.balance(vault, SOL)
        expect(await adapter.transferFee(SOL, address, vault)).to.equal(FEE)
        const signed = await adapter.signTransfer({ from: deposit(11), to: vault, asset: SOL, amount: 'all' }, [])
        expect(signed).to.include({ from: address, nonce: null, amount: 1_234_567_890n - FEE })
        expect(await adapter.broadcast(signed.raw)).to.deep.equal({ kind: 'accepted' })
        expect(await adapter.inspect(signed, FINALIZED)).to.deep.equal({ kind: 'pending' })
        ledger().advance(1)
        expect(await adapter.inspect(signed, FINALIZED)).to.include({ kind: 'confirmed', final: false })
        ledger().finalize()
        expect(await adapter.inspect(signed, FINALIZED)).to.include({ kind: 'confirmed', final: true })
        expect(await adapter.balance(address, SOL)).to.equal(0n)
        expect(await adapter.balance(vault, SOL)).to.equal(vaultBefore + 1_234_567_890n - FEE)
        // The gather is not a deposit into the account it empties.
        expect((await adapter.scanDeposits([watch('s11', address)], 0n, (await adapter.head()).number)).map((d) => d.amount)).to.deep.equal([1_234_567_890n])
        let refused: unknown
        await adapter.signTransfer({ from: deposit(11), to: vault, asset: SOL, amount: 'all' }, []).catch((err) => (refused = err))
        expect(refused).to.be.instanceOf(InsufficientForFeeError)
    })

    it('a gather of the credited deposit only leaves an extra deposit in the account, unless it is below the rent-exempt minimum', async function () {
        const vault = await adapter.deriveAddress(VAULT)
        const credited = 1_000_000_000n
        /** Deposit account `index` is credited 1 SOL and then gets `extra`; the gather of the credited SOL lands: what it moved, what it left. */
        const gatherCredited = async (index: number, extra: bigint) => {
            const address = await adapter.deriveAddress(deposit(index))
            ledger().fund(address, credited)
            ledger().fund(address, extra)
            ledger().finalize()
            const signed = await adapter.signTransfer({ from: deposit(index), to: vault, asset: SOL, amount: 'all', only: { amount: credited, txHash: null } }, [])
            expect(await adapter.broadcast(signed.raw)).to.deep.equal({ kind: 'accepted' })
            ledger().advance(1)
            ledger().finalize()
            return { moved: signed.amount, left: await adapter.balance(address, SOL) }
        }
        // 0.5 SOL more arrived: the gather moves the credited SOL less the fee, the extra stays for its own refund.
        expect(await gatherCredited(12, 500_000_000n)).to.deep.equal({ moved: credited - FEE, left: 500_000_000n })
        // An extra of 1,000 lamports cannot stay (the network refuses an account below the rent-exempt
        // minimum): the gather takes everything, as documented.
        expect(await gatherCredited(13, 1_000n)).to.deep.equal({ moved: credited + 1_000n - FEE, left: 0n })
    })

    it('pays out from the vault by a system transfer, and refuses what the rent rule would fail', async function () {
        const vault = await adapter.deriveAddress(VAULT)
        const to = stranger()
        const vaultBefore = await adapter.balance(vault, SOL)
        const signed = await adapter.signTransfer({ from: VAULT, to, asset: SOL, amount: 700_000_000n }, [])
        expect(await adapter.broadcast(signed.raw)).to.deep.equal({ kind: 'accepted' })
        ledger().finalize()
        expect(await adapter.inspect(signed, FINALIZED)).to.include({ kind: 'confirmed', final: true })
        expect(await adapter.balance(to, SOL)).to.equal(700_000_000n)
        expect(await adapter.balance(vault, SOL)).to.equal(vaultBefore - 700_000_000n - FEE)
        let refused: unknown
        await adapter.signTransfer({ from: VAULT, to: stranger(), asset: SOL, amount: 890_879n }, []).catch((err) => (refused = err))
        expect(refused).to.be.instanceOf(RentError)
        // An account that already holds the minimum may receive any amount.
        const small = await adapter.signTransfer({ from: VAULT, to, asset: SOL, amount: 1n }, [])
        expect(await adapter.broadcast(small.raw)).to.deep.equal({ kind: 'accepted' })
        let offCurve: Error | undefined
        await adapter.signTransfer({ from: VAULT, to: '11111111111111111111111111111111', asset: SOL, amount: 1_000_000_000n }, []).catch((err) => (offCurve = err))
        expect(offCurve?.message).to.match(/not a payout address/)
        ledger().finalize()
    })

    it('rebroadcasts the same bytes any number of times and the transfer lands once', async function () {
        const vault = await adapter.deriveAddress(VAULT)
        const to = stranger()
        const vaultBefore = await adapter.balance(vault, SOL)
        const signed = await adapter.signTransfer({ from: VAULT, to, asset: SOL, amount: 1_500_000_000n }, [])
        expect(await adapter.broadcast(signed.raw)).to.deep.equal({ kind: 'accepted' })
        ledger().advance(3)
        expect(await adapter.broadcast(signed.raw)).to.deep.equal({ kind: 'accepted' })
        ledger().advance(3)
        expect(await adapter.broadcast(signed.raw)).to.deep.equal({ kind: 'accepted' })
        ledger().finalize()
        expect(await adapter.balance(to, SOL)).to.equal(1_500_000_000n)
        expect(await adapter.balance(vault, SOL)).to.equal(vaultBefore - 1_500_000_000n - FEE)
        expect(ledger().signaturesFor(to, 'finalized').map((t) => t.signature)).to.deep.equal([signed.hash])
    })

    it('calls a lost transfer dead only once the finalized height passes its blockhash; the new signature lands once', async function () {
        const to = stranger()
        const lost = await adapter.signTransfer({ from: VAULT, to, asset: SOL, amount: 900_000_000n }, [])
        const expiry = decodeStored(lost.raw).lastValidBlockHeight
        // Never broadcast (a crash after storing): unknown, but it could still land.
        expect(await adapter.inspect(lost, FINALIZED)).to.deep.equal({ kind: 'missing' })
        // Past the expiry at the newest slot, not yet at the finalized one: still not provably dead.
        while (BigInt(ledger().blockHeight()) <= expiry) ledger().advance(10)
        expect(BigInt(ledger().blockHeight(ledger().slotAt('finalized'))) <= expiry).to.equal(true)
        expect(await adapter.inspect(lost, FINALIZED)).to.deep.equal({ kind: 'missing' })
        ledger().finalize()
        // Another process restarted without the in-memory expiry: the stored raw form proves it.
        const fresh = new SolanaAdapter(defaultSolanaConfig(double.url), keys)
        expect(await fresh.inspect({ hash: lost.hash, from: lost.from, nonce: lost.nonce }, FINALIZED)).to.deep.equal({ kind: 'missing' })
        expect(await fresh.inspect({ ...lost, raw: lost.raw }, FINALIZED)).to.deep.equal({ kind: 'dead' })
        expect(await adapter.inspect(lost, FINALIZED)).to.deep.equal({ kind: 'dead' })
        // The old bytes cannot land any more.
        expect(await adapter.broadcast(lost.raw)).to.include({ kind: 'uncertain' })
        const again = await adapter.signTransfer({ from: VAULT, to, asset: SOL, amount: 900_000_000n }, [])
        expect(again.hash).to.not.equal(lost.hash)
        expect(await adapter.broadcast(again.raw)).to.deep.equal({ kind: 'accepted' })
        expect(await adapter.broadcast(lost.raw)).to.include({ kind: 'uncertain' })
        ledger().finalize()
        expect(await adapter.inspect(again, FINALIZED)).to.include({ kind: 'confirmed', final: true })
        expect(await adapter.balance(to, SOL)).to.equal(900_000_000n)
        expect(ledger().signaturesFor(to, 'finalized').map((t) => t.signature)).to.deep.equal([again.hash])
    })

    it('refuses a transaction whose signature was tampered with, and nothing moves', async function () {
        const to = stranger()
        const signed = await adapter.signTransfer({ from: VAULT, to, asset: SOL, amount: 1_000_000_000n }, [])
        const { wire, lastValidBlockHeight } = decodeStored(signed.raw)
        const tampered = Buffer.from(wire)
        tampered[1 + 10] ^= 0x01
        const result = await adapter.broadcast(encodeStored(lastValidBlockHeight, tampered))
        expect(result).to.include({ kind: 'rejected', insufficientFunds: false })
        // The amount changed after signing: the signature no longer covers the message.
        const altered = Buffer.from(wire)
        altered[altered.length - 1] ^= 0x01
        expect(await adapter.broadcast(encodeStored(lastValidBlockHeight, altered))).to.include({ kind: 'rejected', insufficientFunds: false })
        ledger().finalize()
        expect(await adapter.balance(to, SOL)).to.equal(0n)
        expect(ledger().signaturesFor(to, 'finalized')).to.deep.equal([])
        expect(double.calls).to.include.members(['sendTransaction', 'getSignaturesForAddress', 'getTransaction', 'getSignatureStatuses', 'getLatestBlockhash', 'getFeeForMessage'])
    })
})
