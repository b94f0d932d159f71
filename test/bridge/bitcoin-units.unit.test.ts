import { mnemonicToSeedSync } from '@scure/bip39'
import * as bitcoin from 'bitcoinjs-lib'
import { expect } from 'chai'
import { DUST_LIMIT, normalizeAddress, parseAddress } from '../../bridge/chains/bitcoin/address'
import { parseBitcoinEnv } from '../../bridge/chains/bitcoin/config'
import { DEFAULT_CONFIRMATION_TIERS, parseConfirmationTiers, requiredConfirmations } from '../../bridge/chains/bitcoin/confirmations'
import { feeFor, formatSatPerVbyte, p2wpkhSpendVsize, parseSatPerVbyte } from '../../bridge/chains/bitcoin/fees'
import { bip84Path, deriveNode, p2wpkhAddress } from '../../bridge/chains/bitcoin/keys'
import { BitcoinNetworkName, NETWORKS } from '../../bridge/chains/bitcoin/network'
import { DustOutputError, InsufficientFundsError, planPayment, planSweep } from '../../bridge/chains/bitcoin/selection'
import { InsufficientForFeeError } from '../../bridge/chains/adapter'

/** The "abandon … about" mnemonic of BIP-84's test vectors. */
const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'

/**
 * BIP-84's published vectors (github.com/bitcoin/bips, bip-0084.mediawiki) for that mnemonic:
 * path, public key, address.
 */
const BIP84_VECTORS = [
    { index: 0, pubkey: '0330d54fd0dd420a6e5f8d3624f5f3482cae350f79d5f0753bf5beef9c2d91af3c', address: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu' },
    { index: 1, pubkey: '03e775fd51f0dfb8cd865d9ff1cca2a158cf651fe997fdc9fee9c1d3b5e995ea77', address: 'bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g' },
]

describe('bitcoin: keys, addresses, fees and confirmations', function () {
    const seed = mnemonicToSeedSync(MNEMONIC)

    it('derives BIP-84 deposit addresses that match the published vectors', function () {
        for (const v of BIP84_VECTORS) {
            const role = { kind: 'deposit' as const, index: v.index }
            expect(bip84Path(NETWORKS.mainnet, role)).to.equal(`m/84'/0'/0'/0/${v.index}`)
            const node = deriveNode(seed, NETWORKS.mainnet, role)
            expect(Buffer.from(node.publicKey!).toString('hex')).to.equal(v.pubkey)
            expect(p2wpkhAddress(node.publicKey!, NETWORKS.mainnet)).to.equal(v.address)
        }
        // The test networks use coin type 1: another key, not just another prefix.
        expect(bip84Path(NETWORKS.testnet, { kind: 'deposit', index: 0 })).to.equal(`m/84'/1'/0'/0/0`)
        const testKey = deriveNode(seed, NETWORKS.testnet, { kind: 'deposit', index: 0 }).publicKey!
        expect(p2wpkhAddress(testKey, NETWORKS.testnet)).to.equal('tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl')
        expect(p2wpkhAddress(testKey, NETWORKS.regtest)).to.equal('bcrt1q6rz28mcfaxtmd6v789l9rrlrusdprr9pz3cppk')
        expect(bip84Path(NETWORKS.regtest, { kind: 'vault' })).to.equal(`m/84'/1'/1'/0/0`)
        expect(() => deriveNode(seed, NETWORKS.mainnet, { kind: 'deposit', index: 2 ** 31 })).to.throw('non-hardened')
    })

    it('accepts an address only on its own network', function () {
        const hash20 = Buffer.alloc(20, 7)
        const hash32 = Buffer.alloc(32, 9)
        const forms = (net: bitcoin.Network) => ({
            p2pkh: bitcoin.payments.p2pkh({ hash: hash20, network: net }).address!,
            p2sh: bitcoin.payments.p2sh({ hash: hash20, network: net }).address!,
            p2wpkh: bitcoin.payments.p2wpkh({ hash: hash20, network: net }).address!,
            p2wsh: bitcoin.payments.p2wsh({ hash: hash32, network: net }).address!,
        })
        const main = forms(bitcoin.networks.bitcoin)
        const test = forms(bitcoin.networks.testnet)
        const reg = forms(bitcoin.networks.regtest)
        // address → the networks that accept it (regtest takes testnet's base58 forms, as Bitcoin Core's regtest does).
        const matrix: [string, BitcoinNetworkName[]][] = [
            ['bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', ['mainnet']],
            ['1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2', ['mainnet']],
            ['3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', ['mainnet']],
            // BIP-173 / BIP-350 vectors: P2WSH, upper-case P2WPKH, taproot.
            ['bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3', ['mainnet']],
            ['BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4', ['mainnet']],
            ['bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0', ['mainnet']],
            [main.p2pkh, ['mainnet']], [main.p2sh, ['mainnet']], [main.p2wpkh, ['mainnet']], [main.p2wsh, ['mainnet']],
            ['tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl', ['testnet']],
            ['tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7', ['testnet']],
            [test.p2wpkh, ['testnet']], [test.p2wsh, ['testnet']],
            [test.p2pkh, ['testnet', 'regtest']], [test.p2sh, ['testnet', 'regtest']],
            ['bcrt1q6rz28mcfaxtmd6v789l9rrlrusdprr9pz3cppk', ['regtest']],
            [reg.p2wpkh, ['regtest']], [reg.p2wsh, ['regtest']],
            // Invalid everywhere: mixed case, a broken checksum, a v0 program of the wrong length,
            // segwit v2 (anyone-can-spend today), taproot in bech32 instead of bech32m, an EVM address.
            ['bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fYu', []],
            ['bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyv', []],
            [bitcoin.address.toBech32(Buffer.alloc(25, 1), 0, 'bc'), []],
            [bitcoin.address.toBech32(Buffer.alloc(16, 1), 2, 'bc'), []],
            ['bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd', []],
            ['0x52908400098527886E0F7030069857D2E4169EE7', []],
            [' bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', []],
            ['', []],
        ]
        for (const [address, home] of matrix) {
            for (const network of ['mainnet', 'testnet', 'regtest'] as const) {
                const valid = normalizeAddress(address, NETWORKS[network]) !== undefined
                expect(valid, `${address} on ${network}`).to.equal(home.includes(network))
            }
        }
        expect(normalizeAddress('BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4', NETWORKS.mainnet)).to.equal('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4')
        expect(parseAddress('bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0', NETWORKS.mainnet)!.kind).to.equal('p2tr')
        expect(parseAddress('3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', NETWORKS.mainnet)!.kind).to.equal('p2sh')
    })

    it('sizes P2WPKH spends and reads fee rates without floats', function () {
        // Standard P2WPKH sizes: one input, one output = 110 vB; the usual payment with change = 141 vB.
        expect(p2wpkhSpendVsize(1, ['p2wpkh'])).to.equal(110)
        expect(p2wpkhSpendVsize(1, ['p2wpkh', 'p2wpkh'])).to.equal(141)
        expect(p2wpkhSpendVsize(2, ['p2wpkh'])).to.equal(178)
        expect(p2wpkhSpendVsize(1, ['p2tr', 'p2wpkh'])).to.equal(153)
        // 253 inputs: the input count takes a 3-byte varint.
        expect(p2wpkhSpendVsize(253, ['p2wpkh']) - p2wpkhSpendVsize(252, ['p2wpkh'])).to.equal(70)
        expect(parseSatPerVbyte('12.345')).to.equal(12_345n)
        expect(parseSatPerVbyte('1')).to.equal(1_000n)
        expect(parseSatPerVbyte('0.0001')).to.equal(1n)
        expect(parseSatPerVbyte('1.5e-3')).to.equal(2n)
        expect(parseSatPerVbyte('2e1')).to.equal(20_000n)
        expect(formatSatPerVbyte(10_125n)).to.equal('10.125')
        expect(feeFor(110, 10_125n)).to.equal(1_114n)
        expect(DUST_LIMIT).to.deep.equal({ p2pkh: 546n, p2sh: 540n, p2wpkh: 294n, p2wsh: 330n, p2tr: 330n })
    })

    it('plans payments with change, drops dust change into the fee, and refuses dust and shortfalls', function () {
        const to = parseAddress('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', NETWORKS.mainnet)!
        const change = parseAddress('bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g', NETWORKS.mainnet)!
        const coin = (value: bigint, confirmations = 3, vout = 0) => ({ txid: 'aa'.repeat(32), vout, value, confirmations })
        const rate = 10_000n
        const plan = planPayment({ coins: [coin(50_000n, 3, 0), coin(200_000n, 3, 1), coin(80_000n, 0, 2)], to, amount: 120_000n, change, rate })
        expect(plan.inputs.map((c) => c.value)).to.deep.equal([200_000n]) // largest confirmed first
        expect(plan.fee).to.equal(feeFor(141, rate))
        expect(plan.outputs.map((o) => o.value)).to.deep.equal([120_000n, 200_000n - 120_000n - plan.fee])
        // A remainder below the change output's dust limit goes to the fee.
        const tight = planPayment({ coins: [coin(121_500n)], to, amount: 120_000n, change, rate })
        expect(tight.outputs).to.have.length(1)
        expect(tight.fee).to.equal(1_500n)
        expect(() => planPayment({ coins: [coin(1_000_000n)], to, amount: 293n, change, rate })).to.throw(DustOutputError)
        expect(() => planPayment({ coins: [coin(100_000n)], to, amount: 100_000n, change, rate })).to.throw(InsufficientFundsError)
        expect(new InsufficientFundsError('x')).to.be.instanceOf(InsufficientForFeeError)
        // A replacement outbids what it replaces by at least the relay fee of its own size.
        const bump = planPayment({ coins: [coin(200_000n)], to, amount: 120_000n, change, rate, outbid: 5_000n })
        expect(bump.fee).to.equal(5_000n + 141n)
        // A sweep leaves out coins worth less than spending them, and refuses to deliver dust.
        const sweep = planSweep({ coins: [coin(300_000n), coin(600n, 3, 1)], to, rate })
        expect(sweep.inputs).to.have.length(1)
        expect(sweep.amount).to.equal(300_000n - feeFor(110, rate))
        expect(() => planSweep({ coins: [coin(1_300n)], to, rate })).to.throw(InsufficientForFeeError)
    })

    it('asks more confirmations of larger deposits, never fewer than the configured floor', function () {
        const tiers = DEFAULT_CONFIRMATION_TIERS
        expect(requiredConfirmations(10_000n, tiers)).to.equal(1)
        expect(requiredConfirmations(1_000_000n, tiers)).to.equal(1)
        expect(requiredConfirmations(1_000_001n, tiers)).to.equal(2)
        expect(requiredConfirmations(100_000_000n, tiers)).to.equal(3)
        expect(requiredConfirmations(100_000_001n, tiers)).to.equal(6)
        expect(requiredConfirmations(10_000n, tiers, { confirmations: 4 })).to.equal(4)
        expect(requiredConfirmations(500_000_000n, tiers, { tag: 'finalized' })).to.equal(6)
        expect(parseConfirmationTiers('50000:1, *:4')).to.deep.equal([{ upTo: 50_000n, confirmations: 1 }, { upTo: null, confirmations: 4 }])
        expect(() => parseConfirmationTiers('50000:1')).to.throw('must end with')
        expect(() => parseConfirmationTiers('50000:3,10000:4,*:6')).to.throw('ascend')
        expect(() => parseConfirmationTiers('50000:3,*:2')).to.throw('fewer')
    })

    it('reads its settings from the environment; no backend URL leaves the network disabled', function () {
        expect(parseBitcoinEnv({})).to.equal(undefined)
        const esplora = parseBitcoinEnv({ BITCOIN_NETWORK: 'regtest', BITCOIN_ESPLORA_URL: 'http://127.0.0.1:3002', BITCOIN_FEE_TARGET_BLOCKS: '6', BITCOIN_MAX_FEE_RATE: '100' })!
        expect(esplora.network).to.equal('regtest')
        expect(esplora.backend).to.deep.equal({ kind: 'esplora', url: 'http://127.0.0.1:3002' })
        expect(esplora.feeTargetBlocks).to.equal(6)
        expect(esplora.maxFeeRate).to.equal(100_000n)
        expect(esplora.fallbackFeeRate).to.equal(1_000n)
        const core = parseBitcoinEnv({ BITCOIN_RPC_URL: 'http://127.0.0.1:8332', BITCOIN_RPC_USER: 'u', BRIDGE_CONFIRMATIONS_BITCOIN: '2' })!
        expect(core.network).to.equal('mainnet')
        expect(core.backend).to.deep.include({ kind: 'bitcoind', username: 'u', wallet: 'bridge-watch' })
        expect(core.finality).to.deep.equal({ confirmations: 2 })
        expect(core.fallbackFeeRate).to.equal(20_000n)
        expect(() => parseBitcoinEnv({ BITCOIN_NETWORK: 'signet', BITCOIN_ESPLORA_URL: 'x' })).to.throw('unknown Bitcoin network')
        expect(() => parseBitcoinEnv({ BITCOIN_ESPLORA_URL: 'x', BRIDGE_CONFIRMATIONS_BITCOIN: 'finalized' })).to.throw('positive number')
    })
})
