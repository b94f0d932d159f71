import { expect } from 'chai'
import { createCipheriv, hkdfSync, randomBytes } from 'crypto'
import { Keystore } from '../../api/platform/keystore'
import { WorkPool } from '../../common/work-pool'
import { deriveKey, masterKeyBytes, open, seal, SealError, Sealer } from '../../common/sealing'

const MASTER = '11'.repeat(32)
const hashes = new WorkPool({ concurrency: 1, queue: 0 })

/** AES-256-GCM exactly as values already in databases were written: IV beside, tag after the ciphertext. */
function legacySeal(key: Buffer, plain: Buffer, aad: string): { iv: Buffer; ciphertext: Buffer } {
    const iv = randomBytes(12)
    const cipher = createCipheriv('aes-256-gcm', key, iv)
    cipher.setAAD(Buffer.from(aad, 'utf8'))
    return { iv, ciphertext: Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()]) }
}

describe('sealing', function () {
    it('opens a bridge seed written by the former bridge sealer (HKDF of MASTER_KEY, empty salt, purpose as info)', function () {
        const key = Buffer.from(hkdfSync('sha256', Buffer.from(MASTER, 'hex'), Buffer.alloc(0), 'bridge-seed-v1', 32))
        const seed = randomBytes(64)
        const stored = legacySeal(key, seed, 'bridge_key_seed:evm')
        expect(new Sealer(MASTER, 'bridge-seed-v1').open(stored.iv, stored.ciphertext, 'bridge_key_seed:evm')).to.deep.equal(seed)
    })

    it('opens a wallet key written by the former keystore (HKDF of MASTER_KEY ‖ secret, wallet salt)', function () {
        const secret = randomBytes(32)
        const salt = randomBytes(16)
        const userId = 'alice'
        const address = '0xAbCdEf0000000000000000000000000000000001'
        const kek = Buffer.from(hkdfSync('sha256', Buffer.concat([Buffer.from(MASTER, 'hex'), secret]), salt, 'platform/v1/wallet-key', 32))
        const privateKey = randomBytes(32)
        const stored = legacySeal(kek, privateKey, `platform/v1|${userId}|${address.toLowerCase()}`)
        const opened = new Keystore(MASTER, hashes).open({ salt, ...stored }, secret, userId, address)
        expect(opened).to.equal(`0x${privateKey.toString('hex')}`)
    })

    it('round-trips, and a different key, associated data or tampered byte does not open', function () {
        const key = deriveKey(masterKeyBytes(MASTER), 'test-purpose')
        const sealed = seal(key, Buffer.from('plain'), 'row:1')
        expect(sealed.iv.length).to.equal(12)
        expect(sealed.ciphertext.length).to.equal(5 + 16)
        expect(open(key, sealed, 'row:1').toString()).to.equal('plain')
        expect(() => open(key, sealed, 'row:2')).to.throw(SealError)
        expect(() => open(deriveKey(masterKeyBytes(MASTER), 'other-purpose'), sealed, 'row:1')).to.throw(SealError)
        const tampered = Buffer.from(sealed.ciphertext)
        tampered[0] ^= 1
        expect(() => open(key, { iv: sealed.iv, ciphertext: tampered }, 'row:1')).to.throw(SealError)
        expect(() => open(key, { iv: sealed.iv, ciphertext: Buffer.alloc(3) }, 'row:1')).to.throw(SealError)
    })

    it('keys of one purpose differ by salt, and the master key must be 32 bytes', function () {
        const master = masterKeyBytes(MASTER)
        expect(deriveKey(master, 'p', Buffer.from('a'))).to.not.deep.equal(deriveKey(master, 'p', Buffer.from('b')))
        expect(() => masterKeyBytes('11'.repeat(31))).to.throw(/MASTER_KEY must be 32 bytes/)
        expect(() => new Keystore('11', hashes)).to.throw(/32 bytes/)
    })
})
