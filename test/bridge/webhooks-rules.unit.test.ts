import { expect } from 'chai'
import { createHmac } from 'crypto'
import { Webhook } from 'standardwebhooks'
import { EVENT_TYPES as ENGINE_EVENTS } from '../../bridge/engine/lifecycle'
import { Sealer, SealError } from '../../common/sealing'
import { EVENT_TYPES, isKnownEvent, matches, parseEventTypes } from '../../bridge/webhooks/catalogue'
import {
    afterFailure, FIRST_RETRY_MS, MAX_ATTEMPTS, parseRetryAfter, RETRY_CAP_MS, retryDelayMs, shouldDisable,
} from '../../bridge/webhooks/policy'
import { swapEventBody } from '../../bridge/webhooks/payload'
import { bridgeSignature, deliveryHeaders, generateSecret } from '../../bridge/webhooks/signing'
import { nonPublicRange, parseTargetUrl, resolveTarget, TargetRefused } from '../../common/url-safety'
import { bridgeSignatureValid } from './webhook-receiver'

/** The webhook rules on their own: schedule, auto-disable, catalogue, URL safety, signing, sealing, the HTTP attempt is in webhooks-units.test.ts (a real receiver). */
describe('bridge webhooks: rules and building blocks', function () {
    describe('retry schedule (30 s, doubling with jitter, 6 h cap, 8 attempts)', function () {
        it('gives exactly 30 s · 2^(n−1) with no jitter and stays below 1.2× that with the most', function () {
            const nominal = [30_000, 60_000, 120_000, 240_000, 480_000, 960_000, 1_920_000]
            for (let n = 1; n <= 7; n++) {
                expect(retryDelayMs(n, 1, () => 0)).to.equal(nominal[n - 1])
                const most = retryDelayMs(n, 1, () => 0.999999999)
                expect(most).to.be.at.least(nominal[n - 1]).and.below(nominal[n - 1] * 1.2)
            }
            expect(retryDelayMs(1, 1, () => 0.5)).to.equal(33_000)
        })

        it('never waits longer than 6 hours, and grows strictly with every attempt whatever the jitter', function () {
            expect(retryDelayMs(11, 1, () => 0)).to.equal(RETRY_CAP_MS)
            expect(retryDelayMs(10, 1, () => 0)).to.equal(15_360_000)
            expect(retryDelayMs(10, 1, () => 0.5)).to.equal(16_896_000)
            expect(retryDelayMs(11, 1, () => 0.999)).to.equal(RETRY_CAP_MS)
            expect(retryDelayMs(40, 1, () => 0.99)).to.equal(RETRY_CAP_MS)
            for (let n = 1; n < MAX_ATTEMPTS - 1; n++) {
                expect(retryDelayMs(n + 1, 1, () => 0)).to.be.greaterThan(retryDelayMs(n, 1, () => 0.999999999))
            }
            expect(() => retryDelayMs(0)).to.throw(RangeError)
        })

        it('scales every delay and the cap by the time scale', function () {
            expect(retryDelayMs(1, 0.001, () => 0)).to.equal(FIRST_RETRY_MS * 0.001)
            expect(retryDelayMs(30, 0.001, () => 0)).to.equal(RETRY_CAP_MS * 0.001)
        })

        it('gives up after the 8th attempt, and honours Retry-After within the cap', function () {
            expect(MAX_ATTEMPTS).to.equal(8)
            for (let n = 1; n < 8; n++) expect(afterFailure(n, { random: () => 0 })).to.deep.equal({ giveUp: false, delayMs: FIRST_RETRY_MS * 2 ** (n - 1) })
            expect(afterFailure(8)).to.deep.equal({ giveUp: true })
            expect(afterFailure(9)).to.deep.equal({ giveUp: true })
            expect(afterFailure(1, { random: () => 0, retryAfterMs: 120_000 })).to.deep.equal({ giveUp: false, delayMs: 120_000 })
            expect(afterFailure(1, { random: () => 0, retryAfterMs: 5_000 })).to.deep.equal({ giveUp: false, delayMs: 30_000 })
            expect(afterFailure(1, { random: () => 0, retryAfterMs: 48 * 3_600_000 })).to.deep.equal({ giveUp: false, delayMs: RETRY_CAP_MS })
            expect(afterFailure(1, { random: () => 0, retryAfterMs: 3_600_000, scale: 0.001 })).to.deep.equal({ giveUp: false, delayMs: 3_600 })
        })

        it('reads Retry-After as seconds or as an HTTP date', function () {
            const now = Date.parse('2026-11-23T12:00:00Z')
            expect(parseRetryAfter('120', now)).to.equal(120_000)
            expect(parseRetryAfter('Mon, 23 Nov 2026 12:05:00 GMT', now)).to.equal(300_000)
            expect(parseRetryAfter('Mon, 23 Nov 2026 11:00:00 GMT', now)).to.equal(0)
            expect(parseRetryAfter('soon', now)).to.equal(undefined)
            expect(parseRetryAfter(undefined, now)).to.equal(undefined)
        })
    })

    describe('auto-disable rule (every attempt failed for the window AND K consecutive events undelivered)', function () {
        const rule = { afterMs: 24 * 3_600_000, afterEvents: 10 }
        const now = new Date('2026-11-23T12:00:00Z')
        const ago = (ms: number) => new Date(now.getTime() - ms)

        it('disables exactly at the window with K events, not a millisecond or an event before', function () {
            expect(shouldDisable({ failingSince: ago(rule.afterMs), failedEvents: 10 }, now, rule)).to.equal(true)
            expect(shouldDisable({ failingSince: ago(rule.afterMs - 1), failedEvents: 10 }, now, rule)).to.equal(false)
            expect(shouldDisable({ failingSince: ago(rule.afterMs), failedEvents: 9 }, now, rule)).to.equal(false)
            expect(shouldDisable({ failingSince: ago(30 * rule.afterMs), failedEvents: 9 }, now, rule)).to.equal(false)
            expect(shouldDisable({ failingSince: ago(1000), failedEvents: 10_000 }, now, rule)).to.equal(false)
            expect(shouldDisable({ failingSince: null, failedEvents: 10_000 }, now, rule)).to.equal(false)
        })
    })

    describe('event catalogue and filters', function () {
        it('lists every published event with a meaning, and every event the engine writes', function () {
            const names = EVENT_TYPES.map((e) => e.name)
            for (const spec of ['deposit_wallet_created', 'source_token_deposited', 'rate_locked', 'vault_locking', 'vault_locked',
                'payout_processing', 'target_token_sent', 'swap_failed', 'swap_expired', 'simpleswap_*', 'test_ping']) {
                expect(EVENT_TYPES.find((e) => e.name === spec), spec).to.include({ spec: true })
            }
            // The provider leg's events (simpleswap_<status>) are the catalogue's simpleswap_* entry.
            for (const event of ENGINE_EVENTS) expect(names, event).to.include(event.startsWith('simpleswap_') ? 'simpleswap_*' : event)
            for (const event of ENGINE_EVENTS) expect(isKnownEvent(event), event).to.equal(true)
            for (const e of EVENT_TYPES) expect(e.meaning.length, e.name).to.be.greaterThan(10)
        })

        it('accepts exact names and trailing-* prefixes, refuses what can match nothing', function () {
            expect(parseEventTypes(['vault_*', 'swap_failed', 'simpleswap_*', 'simpleswap_waiting', '*', 'vault_*'])).to.deep.equal(['vault_*', 'swap_failed', 'simpleswap_*', 'simpleswap_waiting', '*'])
            for (const bad of ['vault_lockd', 'nothing_*', '', 'Vault_locked', 'vault*locked', 'a b']) {
                expect(() => parseEventTypes([bad]), bad).to.throw()
            }
            expect(isKnownEvent('simpleswap_exchanging')).to.equal(true)
            expect(isKnownEvent('simpleswap_')).to.equal(false)
        })

        it('matches: omitted is every swap event, * is a prefix, test_ping only through the test route', function () {
            expect(matches(null, 'rate_locked')).to.equal(true)
            expect(matches(null, 'simpleswap_sending')).to.equal(true)
            expect(matches(['vault_*'], 'vault_locking')).to.equal(true)
            expect(matches(['vault_*'], 'vault_locked')).to.equal(true)
            expect(matches(['vault_*'], 'payout_processing')).to.equal(false)
            expect(matches(['simpleswap_*'], 'simpleswap_finished')).to.equal(true)
            expect(matches(['rate_locked'], 'rate_locked')).to.equal(true)
            expect(matches(['rate_locked'], 'rate_locked_again')).to.equal(false)
            expect(matches(['*'], 'swap_expired')).to.equal(true)
            expect(matches(null, 'test_ping')).to.equal(false)
            expect(matches(['*'], 'test_ping')).to.equal(false)
        })
    })

    describe('URL safety', function () {
        it('refuses loopback, private, link-local and every other non-public address, IPv4 and IPv6', function () {
            const blocked = [
                '127.0.0.1', '127.255.255.254', '10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254',
                '100.64.0.1', '0.0.0.0', '255.255.255.255', '224.0.0.1', '192.0.2.10', '198.18.0.1',
                '::1', '::', 'fe80::1', 'fe80::1%eth0', 'fc00::1', 'fd12:3456::1', 'ff02::1', '2001:db8::1',
                '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.1.2.3', '64:ff9b::7f00:1', '::127.0.0.1',
            ]
            for (const ip of blocked) expect(nonPublicRange(ip), ip).to.be.a('string')
            const open = ['8.8.8.8', '1.1.1.1', '93.184.216.34', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '2a00:1450::1', '::ffff:8.8.8.8', '64:ff9b::808:808']
            for (const ip of open) expect(nonPublicRange(ip), ip).to.equal(undefined)
            expect(nonPublicRange('127.0.0.1')).to.equal('loopback')
            expect(nonPublicRange('169.254.169.254')).to.equal('link-local')
            expect(nonPublicRange('10.0.0.1')).to.equal('private')
        })

        it('takes only http and https URLs without credentials', function () {
            expect(parseTargetUrl('https://hooks.example.com/x?y=1#frag').toString()).to.equal('https://hooks.example.com/x?y=1')
            for (const bad of ['ftp://example.com/', 'file:///etc/passwd', 'javascript:alert(1)', 'not a url', 'http://user:pw@example.com/', `http://example.com/${'a'.repeat(2100)}`]) {
                expect(() => parseTargetUrl(bad), bad).to.throw(TargetRefused)
            }
        })

        it('refuses a name when any address it resolves to is private, unless private targets are allowed', async function () {
            const resolver = async () => [{ address: '93.184.216.34', family: 4 as const }, { address: '10.0.0.7', family: 4 as const }]
            const url = new URL('http://mixed.test/hook')
            const err = await resolveTarget(url, { allowPrivate: false, resolver }).catch((e) => e)
            expect(err).to.be.instanceOf(TargetRefused)
            expect(err.kind).to.equal('blocked_address')
            expect(err.message).to.match(/mixed\.test resolves to 10\.0\.0\.7.*private/)
            expect(await resolveTarget(url, { allowPrivate: true, resolver })).to.deep.equal({ address: '93.184.216.34', family: 4 })
            const literal = await resolveTarget(new URL('http://[::1]:8080/'), { allowPrivate: false }).catch((e) => e)
            expect(literal.kind).to.equal('blocked_address')
            const missing = await resolveTarget(url, { allowPrivate: false, resolver: async () => { throw Object.assign(new Error('x'), { code: 'ENOTFOUND' }) } }).catch((e) => e)
            expect(missing.kind).to.equal('dns')
        })
    })

    describe('signatures and sealing', function () {
        const body = Buffer.from(swapEventBody('8f9c1c1e-0b7a-4d39-9d55-1f0d3a2c4b5e', {
            event: 'target_token_sent', swap_id: '4d1f6b9e-2f0c-4a55-8f3e-7c2b1a0d9e8f', status: 'completed', tx_hash: '0xabc',
            data: { amount_sent: '0.048', target_wallet: '0x1' }, created_at: new Date('2026-11-23T12:00:00Z'),
        }))

        it('builds the documented body', function () {
            expect(JSON.parse(body.toString())).to.deep.equal({
                event: 'target_token_sent', timestamp: '2026-11-23T12:00:00.000Z', swap_id: '4d1f6b9e-2f0c-4a55-8f3e-7c2b1a0d9e8f',
                tx_hash: '0xabc', status: 'completed', amount_sent: '0.048', error_message: null,
                event_id: '8f9c1c1e-0b7a-4d39-9d55-1f0d3a2c4b5e', data: { amount_sent: '0.048', target_wallet: '0x1' },
            })
        })

        it('signs X-Bridge-Signature over the raw body and webhook-signature as Standard Webhooks verifiers expect, with every secret of a rotation', function () {
            const [newer, older] = [generateSecret(), generateSecret()]
            expect(newer).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/)
            const at = new Date()
            const headers = deliveryHeaders({ event: 'target_token_sent', eventId: 'evt-1', deliveryId: 'd-1', subscriptionId: 's-1', body, secrets: [newer, older], at })
            expect(headers['X-Bridge-Signature']).to.equal(createHmac('sha256', newer).update(body).digest('hex'))
            expect(bridgeSignatureValid(newer, body, headers['X-Bridge-Signature'])).to.equal(true)
            expect(bridgeSignatureValid(older, body, headers['X-Bridge-Signature-Previous'])).to.equal(true)
            const tampered = Buffer.from(body.toString().replace('0.048', '0.049'))
            expect(bridgeSignatureValid(newer, tampered, headers['X-Bridge-Signature'])).to.equal(false)
            expect(headers['webhook-signature'].split(' ')).to.have.length(2)
            expect(headers['webhook-timestamp']).to.equal(String(Math.floor(at.getTime() / 1000)))
            for (const secret of [newer, older]) {
                expect(() => new Webhook(secret).verify(body, headers)).to.not.throw()
                expect(() => new Webhook(secret).verify(tampered, headers)).to.throw()
            }
            expect(() => new Webhook(generateSecret()).verify(body, headers)).to.throw()
            expect(bridgeSignature(newer, body)).to.equal(headers['X-Bridge-Signature'])
        })

        it('seals with a key of its own purpose, bound to the row', function () {
            const master = '33'.repeat(32)
            const sealer = new Sealer(master, 'bridge-webhook-secret-v1')
            const { iv, ciphertext } = sealer.seal(Buffer.from('whsec_abc'), 'bridge_webhook_secret:a')
            expect(ciphertext.includes(Buffer.from('whsec_abc'))).to.equal(false)
            expect(sealer.open(iv, ciphertext, 'bridge_webhook_secret:a').toString()).to.equal('whsec_abc')
            expect(() => sealer.open(iv, ciphertext, 'bridge_webhook_secret:b')).to.throw(SealError)
            expect(() => new Sealer(master, 'bridge-seed-v1').open(iv, ciphertext, 'bridge_webhook_secret:a')).to.throw(SealError)
            expect(() => new Sealer('44'.repeat(32), 'bridge-webhook-secret-v1').open(iv, ciphertext, 'bridge_webhook_secret:a')).to.throw(SealError)
        })
    })
})
