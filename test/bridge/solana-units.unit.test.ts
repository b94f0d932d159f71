import { mnemonicToSeedSync } from '@scure/bip39'
import { Keypair, PublicKey, StakeProgram } from '@solana/web3.js'
import { expect } from 'chai'
import { isAccountAddress, normalizeAddress } from '../../bridge/chains/solana/address'
import { commitmentOf, parseSolanaEnv } from '../../bridge/chains/solana/config'
import { deriveKeypair, slip10Ed25519, solanaPath } from '../../bridge/chains/solana/keys'
import { decodeStored, encodeStored, signSystemTransfer } from '../../bridge/chains/solana/transaction'

const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'

describe('solana: derivation, addresses, stored transfers', function () {
    it('derives SLIP-0010 ed25519 keys: the published vector and the wallets\' Solana address', function () {
        // SLIP-0010 test vector 1 for ed25519 (seed 000102…0f).
        const seed = Buffer.from('000102030405060708090a0b0c0d0e0f', 'hex')
        const master = slip10Ed25519(seed, 'm')
        expect(master.chainCode.toString('hex')).to.equal('90046a93de5380a72b5e45010748567d5ea02bbf6522f979e05c0d8d8ca9fffb')
        expect(master.key.toString('hex')).to.equal('2b4be7f19ee27bbf30c667b642d5f4aa69fd169872f8fc3059c08ebae2eb19e7')
        const child = slip10Ed25519(seed, `m/0'`)
        expect(child.chainCode.toString('hex')).to.equal('8b59aa11380b624e81507a27fedda59fea6d0b779a778918a2fd3590e16e9c69')
        expect(child.key.toString('hex')).to.equal('68e0fe46dfb67e368c75379acec591dad19df3cde26e63b93a8e704f1dade7a3')
        // A known vector: what Phantom shows for this mnemonic's first account.
        const wallet = Buffer.from(mnemonicToSeedSync(MNEMONIC))
        expect(solanaPath({ kind: 'deposit', index: 0 })).to.equal(`m/44'/501'/0'/0'`)
        expect(deriveKeypair(wallet, { kind: 'deposit', index: 0 }).publicKey.toBase58()).to.equal('HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk')
        const vault = deriveKeypair(wallet, { kind: 'vault' }).publicKey.toBase58()
        const deposits = [0, 1, 2].map((index) => deriveKeypair(wallet, { kind: 'deposit', index }).publicKey.toBase58())
        expect(new Set([vault, ...deposits]).size).to.equal(4)
        expect(() => slip10Ed25519(wallet, `m/44'/501'/0'/0`)).to.throw(/hardened/)
        expect(() => deriveKeypair(wallet, { kind: 'deposit', index: 2 ** 31 })).to.throw(/range/)
    })

    it('validates addresses: canonical base58 of 32 bytes, on the curve for deposit and payout targets', function () {
        const wallet = 'HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk'
        // A program-derived address (as an associated token account is one): a valid account, but nobody's signing key.
        const [pda] = PublicKey.findProgramAddressSync([Buffer.from('vault')], StakeProgram.programId)
        const cases: [string, boolean, boolean][] = [
            // address, isAccountAddress, normalizeAddress accepts
            [wallet, true, true],
            [Keypair.generate().publicKey.toBase58(), true, true],
            [pda.toBase58(), true, false],
            ['11111111111111111111111111111111', true, false],
            [wallet.slice(0, -4), false, false],
            [wallet + '1', false, false],
            [` ${wallet}`, false, false],
            [wallet.replace(/[1-9A-HJ-NP-Za-km-z]$/, '0'), false, false],
            ['0x' + 'ab'.repeat(20), false, false],
            ['bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', false, false],
            ['TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH', false, false],
            ['', false, false],
        ]
        for (const [address, valid, target] of cases) {
            expect(isAccountAddress(address), address).to.equal(valid)
            expect(normalizeAddress(address), address).to.equal(target ? address : undefined)
        }
    })

    it('stores a signed transfer with its expiry height and gives back the same wire bytes', function () {
        const from = Keypair.generate()
        const { wire, signature } = signSystemTransfer(from, Keypair.generate().publicKey, 1_000_000n, Keypair.generate().publicKey.toBase58())
        const stored = decodeStored(encodeStored(12_345n, wire))
        expect(stored.lastValidBlockHeight).to.equal(12_345n)
        expect(stored.signature).to.equal(signature)
        expect(Buffer.compare(stored.wire, wire)).to.equal(0)
        expect(() => decodeStored(wire.toString('base64'))).to.throw(/not a stored/)
    })

    it('reads its settings: finalized by default, confirmed on request, processed refused', function () {
        expect(parseSolanaEnv({})).to.equal(undefined)
        expect(parseSolanaEnv({ SOLANA_RPC_URL: 'http://x' })).to.include({ commitment: 'finalized', sendCommitment: 'confirmed' })
        expect(parseSolanaEnv({ SOLANA_RPC_URL: 'http://x', BRIDGE_CONFIRMATIONS_SOLANA: 'confirmed' })!.commitment).to.equal('confirmed')
        expect(() => parseSolanaEnv({ SOLANA_RPC_URL: 'http://x', BRIDGE_CONFIRMATIONS_SOLANA: 'processed' })).to.throw(/finalized or confirmed/)
        expect(commitmentOf({ tag: 'finalized' })).to.equal('finalized')
        expect(commitmentOf({ tag: 'safe' })).to.equal('confirmed')
    })
})
