import { expect } from 'chai'
import * as fs from 'fs'
import * as path from 'path'
import { limitKeyOf } from '../../common/service/client-ip'
import { REPO_ROOT } from '../support/paths'

const ROOT = REPO_ROOT
/** The services' code: what runs in production (devnet, bench and test are tools around it). */
const SERVICE_DIRS = ['api', 'bridge', 'common', 'indexer', 'launcher', 'db', 'model']
const CLIENT_IP = 'common/service/client-ip.ts'

/** Where a raw client address may be read: stored with a form for the record, never counted. */
const RECORD_ONLY: Record<string, string> = {
    'api/explorer/support.ts': 'the support form row keeps the sender\'s IP',
    'api/explorer/newsletter.ts': 'the subscription row keeps the subscriber\'s IP',
}

/** What reads a client's raw address. */
const RAW_ADDRESS = /\b(clientIp|upgradeClientIp)\(|\breq\.ips?\b|\.remoteAddress\b|headers\[['"]x-forwarded-for/gi
/** What builds a limit or a count per client: rate-limiter-flexible's classes, the project's wrappers, per-client maps and counters, a WorkPool's per-key cap. */
const LIMITER = /new (RateLimit|FailureLimit|RateLimiter\w+)\(|\b(perIp|perClient|perAddress|byIp)\s*=\s*new (Map|KeyedCounter)\b|\bperKey: /g
/** How a limiter module keys per client: the key functions, or the wrapper middleware built on them. */
const KEYED = /\b(clientKey|upgradeClientKey)\(|\.perIp\(\)/

function sources(): Map<string, string> {
    const found = new Map<string, string>()
    const walk = (dir: string) => {
        for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
            const rel = path.posix.join(dir, entry.name)
            if (entry.isDirectory()) walk(rel)
            else if (rel.endsWith('.ts') && !rel.endsWith('.d.ts')) found.set(rel, fs.readFileSync(path.join(ROOT, rel), 'utf8'))
        }
    }
    for (const dir of SERVICE_DIRS) if (fs.existsSync(path.join(ROOT, dir))) walk(dir)
    return found
}

/**
 * Every per-client limit is keyed by clientKey (an IPv4 address, or an IPv6 /64): walked over the
 * source, since a limit keyed by the raw address is one an IPv6 subscriber escapes with 2^64 keys.
 */
describe('per-client limits: one key', function () {
    const code = sources()

    it('reads a raw client address only in client-ip.ts and in rows kept for the record, which limit nothing', function () {
        const offenders: string[] = []
        for (const [file, text] of code) {
            if (file === CLIENT_IP) continue
            const uses = text.match(RAW_ADDRESS)
            if (!uses) continue
            if (!(file in RECORD_ONLY)) offenders.push(`${file}: ${[...new Set(uses)].join(', ')}`)
            else if (LIMITER.test(text) || KEYED.test(text)) offenders.push(`${file}: kept for the record, yet it limits`)
            LIMITER.lastIndex = 0
        }
        expect(offenders, 'raw client addresses outside client-ip.ts (use clientKey or upgradeClientKey)').to.deep.equal([])
        for (const file of Object.keys(RECORD_ONLY)) expect(code.get(file), file).to.match(new RegExp(RAW_ADDRESS.source, 'i'))
    })

    it('keys every limiter in the codebase with clientKey or upgradeClientKey', function () {
        const limiters: string[] = []
        const unkeyed: string[] = []
        for (const [file, text] of code) {
            if (!text.match(LIMITER)) continue
            limiters.push(file)
            if (!KEYED.test(text) && !importersKey(file, code)) unkeyed.push(file)
        }
        console.log(`      limiters found: ${limiters.join(', ')}`)
        // The walk finds the limiters it must (else the patterns above went stale).
        expect(limiters).to.include.members(['common/service/rate-limit.ts', 'common/service/ws-hub.ts', 'api/chain/verification/service.ts',
            'api/explorer/rate-limits.ts', 'api/platform/auth.ts', 'bridge/http/swaps.ts', 'bridge/webhooks/auth.ts'])
        expect(unkeyed, 'limiters keyed by something other than clientKey').to.deep.equal([])
        // The wrapper's per-IP middleware is itself keyed by clientKey.
        expect(code.get('common/service/rate-limit.ts')).to.match(/perIp\(\)[^}]*clientKey\(req\)/s)
        // The verification service is handed its key: both routes that submit pass clientKey.
        const submitters = [...code].filter(([, text]) => /verification\.submit\(/.test(text))
        expect(submitters.map(([f]) => f)).to.have.members(['api/chain/routes/smart-contract-verification.ts', 'api/chain/etherscan/verification.ts'])
        expect(code.get('api/chain/routes/smart-contract-verification.ts')).to.match(/verification\.submit\(sub, clientKey\(req\)\)/)
        expect(code.get('api/chain/etherscan/verification.ts')).to.match(/verification\.submit\([^)]*\), client\.key\)/)
        expect(code.get('api/chain/etherscan/index.ts')).to.match(/\{ key: clientKey\(req\) \}/)
    })

    it('counts an IPv6 /64 once, and an IPv4 address (or one mapped into IPv6) as itself', function () {
        expect(limitKeyOf('2001:db8:1:2::1')).to.equal(limitKeyOf('2001:db8:1:2:ffff:1:2:3'))
        expect(limitKeyOf('2001:db8:1:2::1')).to.not.equal(limitKeyOf('2001:db8:1:3::1'))
        expect(limitKeyOf('::ffff:198.51.100.1')).to.equal('198.51.100.1')
        expect(limitKeyOf('198.51.100.1')).to.not.equal(limitKeyOf('198.51.100.2'))
    })
})

/**
 * Modules that build limiters others key, with the modules that key them: each of those must key
 * with clientKey. A new limiter module keyed nowhere in itself fails the walk until it is added here.
 */
const KEYED_BY: Record<string, string[]> = {
    'api/explorer/rate-limits.ts': ['api/explorer/router.ts', 'api/explorer/auth/signin.ts'],
    'api/platform/services.ts': ['api/platform/routes/wallet.ts'],
    // Handed its key by name; the submitters' clientKey is asserted above.
    'api/chain/verification/service.ts': ['api/chain/routes/smart-contract-verification.ts', 'api/chain/etherscan/index.ts'],
}

function importersKey(file: string, code: Map<string, string>): boolean {
    const by = KEYED_BY[file]
    return !!by && by.every((other) => KEYED.test(code.get(other) ?? ''))
}
