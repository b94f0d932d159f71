import { mnemonicToSeedSync } from '@scure/bip39'
import bs58 from 'bs58'
import { expect } from 'chai'
import { createHash } from 'crypto'
import { TronWeb, utils } from 'tronweb'
import { base58Address, hexAddress, normalizeAddress } from '../../bridge/chains/tron/address'
import { int64, parseJson } from '../../bridge/chains/tron/client'
import { MAINNET_USDT_CONTRACT, parseTronEnv } from '../../bridge/chains/tron/config'
import {
    bandwidthBurn, bandwidthOf, pricesOf, TRC20_TRANSFER_BYTES, trxTransferFee, TRX_TRANSFER_BYTES, usdtTransferFee,
} from '../../bridge/chains/tron/fees'
import { deriveNode, publicKeyToAddress, signDigest, tronPath } from '../../bridge/chains/tron/keys'
import { checkBuilt, decodeStored, encodeStored, trc20TransferData, TronTransaction, txIdOf } from '../../bridge/chains/tron/transaction'

const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'
const VECTOR = 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH'

/** An unsigned transaction the way java-tron and tronweb build one, from its raw_data. */
function build(raw_data: TronTransaction['raw_data']): TronTransaction {
    const pb = utils.transaction.txJsonToPb({ visible: false, raw_data })
    const raw_data_hex = utils.transaction.txPbToRawDataHex(pb).toLowerCase()
    return { visible: false, txID: txIdOf(raw_data_hex), raw_data, raw_data_hex }
}

const header = (expiration: number) => ({ ref_block_bytes: 'ffff', ref_block_hash: 'ab'.repeat(8), expiration, timestamp: expiration - 60_000 })
const trxTransfer = (owner: string, to: string, amount: number, expiration = 1_800_000_060_000) => build({
    contract: [{
        parameter: { value: { amount, owner_address: hexAddress(owner), to_address: hexAddress(to) }, type_url: 'type.googleapis.com/protocol.TransferContract' },
        type: 'TransferContract',
    }],
    ...header(expiration),
})
const usdtTransfer = (owner: string, to: string, amount: bigint, feeLimit: number, expiration = 1_800_000_060_000) => build({
    contract: [{
        parameter: {
            value: { data: trc20TransferData(to, amount), owner_address: hexAddress(owner), contract_address: hexAddress(MAINNET_USDT_CONTRACT) },
            type_url: 'type.googleapis.com/protocol.TriggerSmartContract',
        },
        type: 'TriggerSmartContract',
    }],
    ...header(expiration),
    fee_limit: feeLimit,
})

describe('tron: keys, addresses, fees, stored transfers and settings', function () {
    const seed = mnemonicToSeedSync(MNEMONIC)

    it('derives m/44\'/195\'/i\' keys: the reference vector, tronweb agreeing, signatures that recover to the address', function () {
        expect(tronPath({ kind: 'deposit', index: 0 })).to.equal(`m/44'/195'/0'/0/0`)
        expect(tronPath({ kind: 'deposit', index: 7 })).to.equal(`m/44'/195'/0'/0/7`)
        expect(tronPath({ kind: 'vault' })).to.equal(`m/44'/195'/1'/0/0`)
        const first = deriveNode(seed, { kind: 'deposit', index: 0 })
        expect(publicKeyToAddress(first.publicKey!)).to.equal(VECTOR)
        for (const index of [1, 2]) {
            const node = deriveNode(seed, { kind: 'deposit', index })
            expect(publicKeyToAddress(node.publicKey!)).to.equal(TronWeb.fromMnemonic(MNEMONIC, `m/44'/195'/0'/0/${index}`).address)
        }
        const vault = publicKeyToAddress(deriveNode(seed, { kind: 'vault' }).publicKey!)
        expect(vault).to.not.equal(VECTOR)
        expect(normalizeAddress(vault)).to.equal(vault)
        const txID = txIdOf('0a0200642208abababababababab')
        const signature = signDigest(first.privateKey!, Buffer.from(txID, 'hex'))
        expect(signature).to.match(/^[0-9a-f]{128}(1b|1c)$/)
        expect(utils.crypto.ecRecover(txID, signature).toLowerCase()).to.equal(hexAddress(VECTOR))
        expect(() => deriveNode(seed, { kind: 'deposit', index: 2 ** 31 })).to.throw(/non-hardened/)
        expect(() => signDigest(first.privateKey!, Buffer.alloc(31))).to.throw(/32-byte/)
    })

    it('accepts base58check T-addresses only, in their canonical form', function () {
        const cases: [string, boolean][] = [
            [VECTOR, true],
            [MAINNET_USDT_CONTRACT, true],
            ['TLrpNTBuCpGMrB9TyVwgEhNVRhtWEQPHh4', true],
            // Last character changed: the checksum fails.
            [VECTOR.slice(0, -1) + (VECTOR.endsWith('H') ? 'J' : 'H'), false],
            // A look-alike of mainnet USDT's address: its checksum does not hold.
            ['TR7NHqjeKQxGTCi8q8ZEAxsrtrdXFtZPro', false],
            [hexAddress(VECTOR), false],
            ['0x' + hexAddress(VECTOR).slice(2), false],
            ['0x9858EfFD232B4033E47d90003D41EC34EcaEda94', false],
            ['bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', false],
            ['1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2', false],
            ['HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk', false],
            [VECTOR.toLowerCase(), false],
            [` ${VECTOR}`, false],
            [VECTOR + '1', false],
            ['', false],
        ]
        for (const [address, valid] of cases) expect(normalizeAddress(address), address).to.equal(valid ? address : undefined)
        // A well-formed base58check of 21 bytes under another version byte (0xa0, TRON's retired testnet prefix).
        const payload = Buffer.concat([Buffer.from([0xa0]), Buffer.alloc(20, 3)])
        const check = createHash('sha256').update(createHash('sha256').update(payload).digest()).digest().subarray(0, 4)
        expect(normalizeAddress(bs58.encode(Buffer.concat([payload, check])))).to.equal(undefined)
        expect(hexAddress(MAINNET_USDT_CONTRACT)).to.equal('41a614f803b6fd780986a42c78ec9c7f77e6ded13c')
        expect(base58Address('41a614f803b6fd780986a42c78ec9c7f77e6ded13c')).to.equal(MAINNET_USDT_CONTRACT)
        expect(base58Address('0x41A614F803B6FD780986A42C78EC9C7F77E6DED13C')).to.equal(MAINNET_USDT_CONTRACT)
        expect(TronWeb.address.fromHex(hexAddress(VECTOR))).to.equal(VECTOR)
        expect(() => hexAddress('0x9858EfFD232B4033E47d90003D41EC34EcaEda94')).to.throw(/not a TRON address/)
    })

    it('quotes fees from the chain parameters: bandwidth, account creation, USDT energy by recipient', function () {
        const mainnet = pricesOf(new Map())
        expect(mainnet).to.deep.equal({ bandwidth: 1_000n, energy: 100n, createAccount: 100_000n, newAccount: 1_000_000n, freeBandwidth: 600n, maxFeeLimit: 15_000_000_000n })
        const prices = pricesOf(new Map([['getEnergyFee', 210n], ['getTransactionFee', 1_000n]]))
        expect(prices.energy).to.equal(210n)
        expect(trxTransferFee(prices, true)).to.equal(280_000n)
        expect(trxTransferFee(prices, false)).to.equal(280_000n + 100_000n + 1_000_000n)
        expect(usdtTransferFee(prices, true)).to.equal(64_285n * 210n + 360_000n)
        expect(usdtTransferFee(prices, false)).to.equal(130_285n * 210n + 360_000n)
        expect(bandwidthBurn(345, 600n, prices)).to.equal(0n)
        expect(bandwidthBurn(345, 344n, prices)).to.equal(345_000n)
    })

    it('counts bandwidth as java-tron does, within the upper bounds for the largest transfers', function () {
        const owner = VECTOR
        const to = MAINNET_USDT_CONTRACT
        // Signed size, counted on the protobuf itself, plus the 64 bytes java-tron adds.
        const signed = (tx: TronTransaction) => {
            const pb = utils.transaction.txJsonToPb(tx)
            pb.addSignature(Buffer.alloc(65, 1))
            return pb.serializeBinary().length + 64
        }
        const small = trxTransfer(owner, to, 1_000_000)
        expect(bandwidthOf(small.raw_data_hex)).to.equal(signed(small))
        // The largest amount signTransfer sends, and expirations until the year 2109.
        const largest = trxTransfer(owner, to, Number.MAX_SAFE_INTEGER, 4_398_046_511_103)
        expect(bandwidthOf(largest.raw_data_hex)).to.equal(signed(largest))
        expect(bandwidthOf(largest.raw_data_hex)).to.be.at.most(TRX_TRANSFER_BYTES)
        const usdt = usdtTransfer(owner, to, 2n ** 256n - 1n, 15_000_000_000, 4_398_046_511_103)
        expect(bandwidthOf(usdt.raw_data_hex)).to.equal(signed(usdt))
        expect(bandwidthOf(usdt.raw_data_hex)).to.be.at.most(TRC20_TRANSFER_BYTES)
        expect(bandwidthOf(usdtTransfer(owner, to, 1n, 100_000_000).raw_data_hex)).to.be.within(340, 350)
    })

    it('signs only the transfer it asked for, and stores it as the JSON the node takes', function () {
        const owner = VECTOR
        const to = MAINNET_USDT_CONTRACT
        const tx = trxTransfer(owner, to, 5_000_000)
        expect(() => checkBuilt(tx, { kind: 'trx', owner, to, amount: 5_000_000n })).to.not.throw()
        expect(() => checkBuilt(tx, { kind: 'trx', owner, to, amount: 5_000_001n })).to.throw(/amount differs/)
        expect(() => checkBuilt(tx, { kind: 'trx', owner: to, to: owner, amount: 5_000_000n })).to.throw(/owner_address/)
        // raw_data changed after encoding: raw_data_hex no longer says the same.
        const edited = JSON.parse(JSON.stringify(tx))
        edited.raw_data.contract[0].parameter.value.amount = 6_000_000
        expect(() => checkBuilt(edited, { kind: 'trx', owner, to, amount: 6_000_000n })).to.throw(/disagree/)
        const usdt = usdtTransfer(owner, to, 7_000_000n, 100_000_000)
        const intent = { kind: 'trc20' as const, owner, contract: MAINNET_USDT_CONTRACT, to, amount: 7_000_000n, feeLimit: 100_000_000n }
        expect(() => checkBuilt(usdt, intent)).to.not.throw()
        expect(() => checkBuilt(usdt, { ...intent, feeLimit: 1n })).to.throw(/fee_limit/)
        expect(() => checkBuilt(usdt, { ...intent, to: owner })).to.throw(/transfer\(recipient, amount\)/)
        expect(() => checkBuilt(usdt, { kind: 'trx', owner, to, amount: 7_000_000n })).to.throw(/not a TRX transfer/)

        const signature = 'ab'.repeat(64) + '1b'
        const stored = decodeStored(encodeStored(tx, signature))
        expect(stored).to.include({ txID: tx.txID, owner, expiration: 1_800_000_060_000n })
        expect(stored.tx.signature).to.deep.equal([signature])
        expect(JSON.stringify(stored.tx.raw_data)).to.equal(JSON.stringify(tx.raw_data))
        expect(() => decodeStored(JSON.stringify(tx))).to.throw(/not signed/)
        expect(() => decodeStored(encodeStored({ ...tx, txID: '00'.repeat(32) }, signature))).to.throw(/sha256/)
        expect(() => decodeStored('0a02')).to.throw(/not a stored/)
    })

    it('reads int64 values without losing digits', function () {
        const parsed = parseJson('{"balance": 123456789012345678901, "small": 42, "neg": -9007199254740993, "s": "1:12345678901234567,x\\"9\\"", "list": [1.5, 2e3]}')
        expect(parsed).to.deep.equal({ balance: '123456789012345678901', small: 42, neg: '-9007199254740993', s: '1:12345678901234567,x"9"', list: [1.5, 2000] })
        expect(int64(parsed.balance)).to.equal(123_456_789_012_345_678_901n)
        expect(int64(undefined)).to.equal(0n)
        expect(int64(42)).to.equal(42n)
        expect(() => int64(1.5)).to.throw(/not an integer/)
    })

    it('reads its settings: solidified by default, a block count on request, USDT contract and fee limit checked', function () {
        expect(parseTronEnv({})).to.equal(undefined)
        const defaults = parseTronEnv({ TRON_API_URL: 'https://api.trongrid.io/' })!
        expect(defaults).to.deep.equal({
            chain: 'TRON', apiUrl: 'https://api.trongrid.io', finality: { tag: 'finalized' }, usdtContract: MAINNET_USDT_CONTRACT,
            feeLimit: 100_000_000n, maxScanBlocks: 28_800n,
        })
        const custom = parseTronEnv({
            TRON_API_URL: 'http://127.0.0.1:8090', TRON_API_KEY: 'k', BRIDGE_CONFIRMATIONS_TRON: '25', TRON_USDT_CONTRACT: VECTOR,
            TRON_FEE_LIMIT_SUN: '30000000', TRON_MAX_SCAN_BLOCKS: '1200',
        })!
        expect(custom).to.include({ apiKey: 'k', usdtContract: VECTOR, feeLimit: 30_000_000n, maxScanBlocks: 1_200n })
        expect(custom.finality).to.deep.equal({ confirmations: 25 })
        expect(parseTronEnv({ TRON_API_URL: 'http://x', BRIDGE_CONFIRMATIONS_TRON: 'finalized' })!.finality).to.deep.equal({ tag: 'finalized' })
        expect(parseTronEnv({ TRON_API_URL: 'http://x', BRIDGE_CONFIRMATIONS_TRON: 'solidified' })!.finality).to.deep.equal({ tag: 'finalized' })
        for (const bad of ['safe', '0', '-1', '1.5']) {
            expect(() => parseTronEnv({ TRON_API_URL: 'http://x', BRIDGE_CONFIRMATIONS_TRON: bad }), bad).to.throw(/BRIDGE_CONFIRMATIONS_TRON/)
        }
        expect(() => parseTronEnv({ TRON_API_URL: 'http://x', TRON_USDT_CONTRACT: hexAddress(VECTOR) })).to.throw(/TRON_USDT_CONTRACT/)
        expect(() => parseTronEnv({ TRON_API_URL: 'http://x', TRON_FEE_LIMIT_SUN: '1e8' })).to.throw(/TRON_FEE_LIMIT_SUN/)
        expect(() => parseTronEnv({ TRON_API_URL: 'http://x', TRON_FEE_LIMIT_SUN: '15000000001' })).to.throw(/TRON_FEE_LIMIT_SUN/)
        expect(() => parseTronEnv({ TRON_API_URL: 'ftp://x' })).to.throw(/TRON_API_URL/)
    })
})
