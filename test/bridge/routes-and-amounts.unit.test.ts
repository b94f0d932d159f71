import { expect } from 'chai'
import * as fs from 'fs'
import * as path from 'path'
import { formatRatio, formatUnits, numberToDecimal, parseUnits, rescale } from '../../bridge/amounts'
import { BridgeConfig, BridgeEnvSchema, loadBridgeConfig, parseBridgeEnv } from '../../bridge/config'
import { poolAmountOut } from '../../bridge/engine/rates'
import { RouteTable } from '../../bridge/engine/routing'
import { EVENT_OF_STATUS } from '../../bridge/engine/lifecycle'
import { STATUSES } from '../../bridge/engine/statuses'
import { REPO_ROOT } from '../support/paths'

/** Pure logic of the bridge: amounts, the AMM quote, the route table, the status/event vocabulary. */
describe('bridge: amounts, pricing and routes', function () {
    it('converts decimal strings and base units exactly', function () {
        expect(parseUnits('12.5', 6)).to.equal(12_500_000n)
        expect(parseUnits('0.000000000000000001', 18)).to.equal(1n)
        expect(parseUnits('7.10', 1)).to.equal(71n)
        expect(() => parseUnits('0.0000001', 6)).to.throw('6 decimal places')
        expect(() => parseUnits('1e5', 6)).to.throw()
        expect(() => parseUnits('-1', 6)).to.throw()
        expect(formatUnits(12_500_000n, 6)).to.equal('12.5')
        expect(formatUnits(1n, 18)).to.equal('0.000000000000000001')
        expect(formatUnits(5n * 10n ** 18n, 18)).to.equal('5')
        expect(rescale(1_000_000n, 6, 18)).to.equal(10n ** 18n)
        expect(rescale(10n ** 18n + 1n, 18, 6)).to.equal(1_000_000n)
        expect(formatRatio(1n, 3n, 6)).to.equal('0.333333')
    })

    it('reads a JSON number as the decimal its sender wrote', function () {
        expect(numberToDecimal(0.1)).to.equal('0.1')
        expect(numberToDecimal(100)).to.equal('100')
        expect(numberToDecimal(1e-7)).to.equal('0.0000001')
        expect(numberToDecimal(1.5e-7)).to.equal('0.00000015')
        expect(numberToDecimal(1e21)).to.equal('1000000000000000000000')
        expect(numberToDecimal(2.5e21)).to.equal('2500000000000000000000')
    })

    it('quotes a pool exactly as the AMM pays (0.2% fee, rounding down)', function () {
        const [reserveIn, reserveOut] = [20_000_000n * 10n ** 18n, 10_000n * 10n ** 18n]
        const amountIn = 97_500_000_000_000_000_000n
        expect(poolAmountOut(amountIn, reserveIn, reserveOut)).to.equal((amountIn * 998n * reserveOut) / (reserveIn * 1000n + amountIn * 998n))
        expect(poolAmountOut(0n, reserveIn, reserveOut)).to.equal(0n)
        expect(poolAmountOut(amountIn, 0n, reserveOut)).to.equal(0n)
    })

    describe('the route table', function () {
        const config = (over: Record<string, string> = {}): BridgeConfig => loadBridgeConfig(parseBridgeEnv({
            DATA_DIR: '/nonexistent',
            RPC_URL: 'http://127.0.0.1:1',
            WNATIVE_ADDRESS: '0x' + '1'.repeat(40), STABLE_ADDRESS: '0x' + '2'.repeat(40),
            AMM_FACTORY_ADDRESS: '0x' + '3'.repeat(40), AMM_ROUTER_ADDRESS: '0x' + '4'.repeat(40),
            BSC_RPC_URL: 'http://127.0.0.1:2', BSC_USDT_ADDRESS: '0x' + '5'.repeat(40), BSC_WNATIVE_ADDRESS: '0x' + '6'.repeat(40),
            BSC_AMM_FACTORY_ADDRESS: '0x' + '7'.repeat(40),
            BSC_AMM_ROUTER_ADDRESS: '0x' + '9'.repeat(40),
            ETHEREUM_RPC_URL: 'http://127.0.0.1:3', ETHEREUM_USDT_ADDRESS: '0x' + '8'.repeat(40),
            ...over,
        }))

        it('gives every EVM pair a kind by its price path', function () {
            const table = new RouteTable(config())
            const kind = (a: string, b: string) => {
                const [sc, st] = a.split(':')
                const [tc, tt] = b.split(':')
                const route = table.find(sc, st, tc, tt)!
                return route.disabled ? `disabled: ${route.disabled}` : `${route.kind} ${route.legs.map((l) => l.type === 'pool' ? l.pool : l.type).join('+')}`
            }
            expect(kind('NATIVECHAIN:NATIVE', 'NATIVECHAIN:STABLE')).to.equal('pool nativechain-wnative-stable')
            expect(kind('BSC:USDT', 'NATIVECHAIN:NATIVE')).to.equal('pool bsc-wnative-usdt')
            expect(kind('NATIVECHAIN:NATIVE', 'BSC:WNATIVE')).to.equal('vault peg')
            expect(kind('ETHEREUM:USDT', 'NATIVECHAIN:STABLE')).to.equal('vault peg')
            expect(kind('ETHEREUM:ETH', 'BSC:USDT')).to.equal('vault reference')
            expect(kind('ETHEREUM:ETH', 'NATIVECHAIN:NATIVE')).to.equal('multi_hop reference+bsc-wnative-usdt')
            expect(kind('ETHEREUM:ETH', 'POLYGON:POL')).to.equal('disabled: network not enabled: POLYGON')
            expect(kind('TRON:TRX', 'NATIVECHAIN:NATIVE')).to.equal('disabled: network not enabled: TRON')
            expect(kind('NATIVECHAIN:STABLE', 'SOLANA:SOL')).to.equal('disabled: network not enabled: SOLANA')
        })

        it('disables tokens without a contract address, and routes without a price', function () {
            const table = new RouteTable(config({ ETHEREUM_USDT_ADDRESS: '', BRIDGE_REFERENCE_PRICES: 'POL=0.25' }))
            expect(table.find('ETHEREUM', 'USDT', 'BSC', 'USDT')!.disabled).to.match(/^token not enabled: USDT on ETHEREUM/)
            expect(table.find('ETHEREUM', 'ETH', 'BSC', 'USDT')!.disabled).to.equal('no route for the pair: no price for ETH')
        })

        it('falls back to the other NATIVE pool when only one is configured', function () {
            const table = new RouteTable(config({ BSC_AMM_FACTORY_ADDRESS: '' }))
            expect(table.find('BSC', 'USDT', 'NATIVECHAIN', 'NATIVE')!.legs).to.deep.equal([{ type: 'pool', pool: 'nativechain-wnative-stable', from: 'USD', to: 'NATIVE' }])
        })
    })

    it('every env variable the bridge reads is in docker-compose.yml\'s bridge service, in docs/configuration.md\'s tables and in the env schema', function () {
        const root = REPO_ROOT
        const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8')
        // The bridge's modules that the running process loads (imports reachable from bridge/main.ts):
        // code that exists but is not wired in yet reads nothing.
        const loaded = new Set<string>()
        const visit = (file: string) => {
            if (loaded.has(file)) return
            loaded.add(file)
            for (const [, spec] of read(file).matchAll(/from '(\.{1,2}\/[^']+)'/g)) {
                const base = path.join(path.dirname(file), spec)
                const next = [`${base}.ts`, path.join(base, 'index.ts')].find((f) => fs.existsSync(path.join(root, f)))
                if (next && next.startsWith(`bridge${path.sep}`)) visit(next)
            }
        }
        visit(path.join('bridge', 'main.ts'))
        const used = new Set([...loaded].flatMap((f) => [...read(f).matchAll(/\benv\.([A-Z][A-Z0-9_]+)/g)].map((m) => m[1])))
        // What the bridge reads through the shared helpers of common/ (secrets, native contracts, RPC).
        for (const name of ['MASTER_KEY', 'RPC_URL', 'WNATIVE_ADDRESS', 'STABLE_ADDRESS', 'AMM_FACTORY_ADDRESS', 'AMM_ROUTER_ADDRESS']) used.add(name)
        expect(used.size).to.be.greaterThan(20)

        const compose = read('docker-compose.yml').split('\n')
        const block = (start: RegExp, indent: string) => {
            const from = compose.findIndex((l) => start.test(l))
            expect(from, `docker-compose.yml has ${start}`).to.be.greaterThan(-1)
            const end = compose.findIndex((l, i) => i > from && l.trim() !== '' && !l.startsWith(indent + ' '))
            return compose.slice(from, end === -1 ? undefined : end)
        }
        const keys = (lines: string[]) => lines.flatMap((l) => /^\s+([A-Z][A-Z0-9_]*):/.exec(l)?.[1] ?? [])
        const shared = keys(block(/^x-service:/, ''))
        const bridgeService = block(/^ {2}bridge:\s*$/, '  ')
        expect(bridgeService.some((l) => l.trim() === '<<: *env'), 'the bridge service takes the shared environment').to.equal(true)
        const inCompose = new Set([...shared, ...keys(bridgeService)])
        expect([...used].filter((name) => !inCompose.has(name)), 'read by the bridge, missing from its docker-compose service').to.deep.equal([])

        const documentedRows = read(path.join('docs', 'configuration.md')).split('\n').filter((l) => l.startsWith('|')).join('\n')
        expect([...used].filter((name) => !documentedRows.includes(`\`${name}\``)), 'read by the bridge, missing from docs/configuration.md\'s tables').to.deep.equal([])

        // A misspelt name in docker-compose.yml would be silently ignored: each must be one the schema validates.
        const schema = Object.keys(BridgeEnvSchema.shape)
        expect(keys(bridgeService).filter((name) => !schema.includes(name)), 'in docker-compose.yml, unknown to the bridge\'s env schema').to.deep.equal([])
    })

    it('names an event for every status', function () {
        expect(STATUSES.map((s) => EVENT_OF_STATUS[s])).to.deep.equal([
            'deposit_wallet_created', 'source_token_deposited', 'deposit_confirmed', 'rate_locked', 'gathering', 'gathered',
            // The provider leg's statuses are their own events, one to one (simpleswap_*).
            'simpleswap_waiting', 'simpleswap_confirming', 'simpleswap_exchanging', 'simpleswap_sending', 'simpleswap_finished',
            'simpleswap_failed', 'simpleswap_refunded', 'simpleswap_verifying', 'simpleswap_expired',
            'vault_locking', 'vault_locked', 'payout_processing', 'target_token_sent', 'swap_failed', 'swap_expired',
        ])
    })
})
