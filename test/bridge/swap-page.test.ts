import { expect } from 'chai'
import { randomBytes, randomUUID } from 'crypto'
import * as fs from 'fs'
import * as path from 'path'
import puppeteer, { Browser, Page } from 'puppeteer-core'
import QRCode from 'qrcode'
import { Client } from 'pg'
import { getAddress, parseUnits } from 'viem'
import { PAGE_CSP, QR_OPTIONS } from '../../bridge/http/swap-page'
import { createTestDatabase } from '../support/postgres'
import {
    account, BridgeChains, BridgeProcess, bridgeEnv, createSwap, fundVaults, send, startBridge, startBridgeChains, tempDir, waitForStatus,
} from './support'

/**
 * The swap page (docs/bridge/README.md#swap-page) in headless Chromium, on the real compiled bridge
 * process, following a real NATIVE → USDT on ETHEREUM swap from its creation to its payout.
 */

// The predicates below run in the page, where `document` is the browser's.
declare const document: any

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const SCREENSHOTS = path.resolve(__dirname, '../../../test-output/swap-page')
/** Every status of a completed swap without a provider leg, in order (docs/bridge/lifecycle.md#lifecycle). */
const COMPLETED = [
    'pending_deposit', 'deposit_detected', 'deposit_confirmed', 'rate_locked', 'gathering', 'gathered',
    'vault_locking', 'vault_locked', 'payout_processing', 'completed',
]
const WAIT = { timeout: 120_000 }

describe('bridge: the swap page follows a real swap in a browser', function () {
    this.timeout(300_000)
    let w: BridgeChains
    let bridge: BridgeProcess
    let env: Record<string, string>
    let databaseUrl: string
    let dir: string
    let browser: Browser
    let page: Page
    /** Whatever the page reported as going wrong: script errors, CSP violations, failed loads. */
    const problems: string[] = []

    before(async function () {
        databaseUrl = await createTestDatabase('bridge_swap_page')
        w = await startBridgeChains()
        dir = tempDir()
        env = bridgeEnv(w, databaseUrl, dir)
        bridge = await startBridge(env)
        await fundVaults(w, bridge)
        browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] })
        page = await browser.newPage()
        page.on('pageerror', (err) => problems.push(`page error: ${(err as Error).message}`))
        // A failed load is listed by its response below, with its URL.
        page.on('console', (m) => {
            if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(`console: ${m.text()}`)
        })
        page.on('response', (r) => {
            if (r.status() >= 400 && new URL(r.url()).pathname !== '/favicon.ico') problems.push(`${r.status()} ${new URL(r.url()).pathname}`)
        })
        page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`))
        fs.mkdirSync(SCREENSHOTS, { recursive: true })
    })

    after(async function () {
        await browser?.close()
        await bridge?.stop()
        await w?.stop()
        if (dir) fs.rmSync(dir, { recursive: true, force: true })
    })

    const textOf = (id: string) => page.$eval(`#${id}`, (e: any) => e.textContent)
    const refundLines = () => page.$$eval('#refund-state p', (lines: any[]) => lines.map((p) => p.textContent))
    const timeline = () => page.$$eval('#timeline li', (items: any[]) => items.map((li) => li.dataset.status))
    const shows = (status: string) => page.waitForFunction(
        (s: string) => document.querySelector(`#timeline li[data-status="${s}"]`) !== null, WAIT, status)
    const current = (status: string) => page.waitForFunction(
        (s: string) => document.querySelector('#timeline li[aria-current="step"]')?.dataset.status === s &&
            document.getElementById('status').dataset.status === s, WAIT, status)
    const screenshot = async (name: string) => {
        const file = path.join(SCREENSHOTS, `${name}.png`)
        await page.screenshot({ path: file, fullPage: true })
        console.log(`      screenshot: ${file}`)
    }

    it('shows the deposit address, amount and QR code, each status as it happens, the transactions, and the same after a reload', async function () {
        const user = account(5)
        const swap = await createSwap(bridge, {
            source_chain: 'NATIVECHAIN', source_token: 'NATIVE', target_chain: 'ETHEREUM', target_token: 'USDT',
            source_token_amount: '0.5', target_wallet: account(6).address, refund_address: user.address,
        })
        // Lists every status the page's header shows, so the test can see that it only ever moves forward.
        await page.evaluateOnNewDocument(() => {
            const seen: string[] = []
            ;(globalThis as any).seenStatuses = seen
            new (globalThis as any).MutationObserver(() => {
                const status = document.getElementById('status')?.dataset.status
                if (status && seen[seen.length - 1] !== status) seen.push(status)
            }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-status'] })
        })
        const response = await page.goto(`${bridge.url}/swap/${swap.id}`)
        expect(response!.status()).to.equal(200)
        expect(response!.headers()['content-type']).to.match(/^text\/html/)
        expect(response!.headers()['content-security-policy']).to.equal(PAGE_CSP)
        expect(response!.headers()['x-content-type-options']).to.equal('nosniff')

        await current('pending_deposit')
        expect(await textOf('deposit-address')).to.equal(swap.deposit_address)
        expect(await textOf('amount')).to.equal('0.5')
        expect(await textOf('asset')).to.equal('NATIVE')
        expect(await textOf('network')).to.equal('NATIVECHAIN')
        expect(await textOf('expiry')).to.match(/^Expires in \d+ min \d\d s/)
        expect(await textOf('deposit-tx')).to.equal('—')
        // The QR code: loaded by the page (CSP allows it), and exactly qrcode's drawing of the deposit address.
        await page.waitForFunction(() => {
            const img = document.getElementById('qr')
            return img.complete && img.naturalWidth > 0 && img.getClientRects().length > 0
        }, WAIT)
        const qrSrc = await page.$eval('#qr', (img: any) => img.getAttribute('src'))
        expect(qrSrc).to.equal(`/swap/${swap.id}/qr.svg`)
        const qr = await fetch(`${bridge.url}${qrSrc}`)
        expect(qr.status).to.equal(200)
        expect(qr.headers.get('content-type')).to.match(/^image\/svg\+xml/)
        const svg = await qr.text()
        expect(svg).to.match(/^<svg /)
        expect(svg).to.equal(await QRCode.toString(swap.deposit_address, QR_OPTIONS))
        // The live socket is subscribed before the deposit goes out.
        await page.waitForFunction(() => document.getElementById('connection').textContent.startsWith('Live'), WAIT)
        await screenshot('pending')

        const depositHash = await send(w.chains.NATIVECHAIN, 5, swap.deposit_address, parseUnits('0.5', 18))
        for (const status of COMPLETED.slice(1)) await shows(status)
        await current('completed')
        await page.waitForFunction((hash: string) => document.getElementById('deposit-tx').textContent === hash, WAIT, depositHash)
        const done = await waitForStatus(bridge, swap.id, ['completed'])
        await page.waitForFunction((hash: string) => document.getElementById('payout-tx').textContent === hash, WAIT, done.payout_tx_hash)
        expect(await timeline()).to.deep.equal(COMPLETED)
        expect(await page.$eval('#refund', (e: any) => e.hidden)).to.equal(true)
        // Paid: the address is no longer offered as something to pay.
        expect(await page.$eval('#qr', (e: any) => e.getClientRects().length)).to.equal(0)
        await screenshot('completed')
        // The header moved forward only, from the first status to the last, without a reload.
        const seen: string[] = await page.evaluate(() => (globalThis as any).seenStatuses)
        expect(seen[0]).to.equal('pending_deposit')
        expect(seen.at(-1)).to.equal('completed')
        expect(seen.map((s) => COMPLETED.indexOf(s))).to.deep.equal(seen.map((s) => COMPLETED.indexOf(s)).sort((a, b) => a - b))

        await page.reload()
        await current('completed')
        expect(await timeline()).to.deep.equal(COMPLETED)
        expect(await textOf('deposit-tx')).to.equal(depositHash)
        expect(await textOf('payout-tx')).to.equal(done.payout_tx_hash)
        expect(await textOf('deposit-address')).to.equal(swap.deposit_address)
        expect(await textOf('receive-amount')).to.equal(done.target_token_amount)
        expect(await textOf('expiry')).to.match(/^Deposit window: until /)
        expect(problems).to.deep.equal([])
    })

    it('follows the swap across a bridge restart: the socket reopens and the page reads what happened meanwhile', async function () {
        const swap = await createSwap(bridge, {
            source_chain: 'NATIVECHAIN', source_token: 'NATIVE', target_chain: 'ETHEREUM', target_token: 'USDT',
            source_token_amount: '0.2', target_wallet: account(6).address, refund_address: account(5).address,
        })
        await page.goto(`${bridge.url}/swap/${swap.id}`)
        await current('pending_deposit')
        await page.waitForFunction(() => document.getElementById('connection').textContent.startsWith('Live'), WAIT)

        const port = Number(new URL(bridge.url).port)
        await bridge.stop()
        await page.waitForFunction(() => document.getElementById('connection').textContent.startsWith('Connection lost'), WAIT)
        // The page stays cut off until the swap is over, so it can learn its steps only by reading them after it reconnects.
        await page.setOfflineMode(true)
        await send(w.chains.NATIVECHAIN, 5, swap.deposit_address, parseUnits('0.2', 18))
        bridge = await startBridge(env, { port })
        const done = await waitForStatus(bridge, swap.id, ['completed'])
        expect(await timeline()).to.deep.equal(['pending_deposit'])
        await page.setOfflineMode(false)

        await current('completed')
        expect(await timeline()).to.deep.equal(COMPLETED)
        expect(await page.evaluate(() => (globalThis as any).seenStatuses)).to.deep.equal(['pending_deposit', 'completed'])
        await page.waitForFunction(() => document.getElementById('connection').textContent.startsWith('Live'), WAIT)
        await page.waitForFunction((hash: string) => document.getElementById('payout-tx').textContent === hash, WAIT, done.payout_tx_hash)
        // While the bridge was away the page's reads and socket failed; nothing else went wrong.
        expect(problems.splice(0).filter((p) => !/ERR_CONNECTION_REFUSED|ERR_INTERNET_DISCONNECTED|WebSocket connection to .* failed/.test(p))).to.deep.equal([])
    })

    it('a failed swap: its reason and refund, as text; an expired one: no deposit arrived', async function () {
        // Rows as the engine leaves such swaps (no events): the page's rendering of them is what is tested here.
        const hash = (byte: string) => `0x${byte.repeat(32)}`
        const reason = '<img src=x onerror="document.title=1">rate moved beyond the allowed slippage'
        const db = new Client({ connectionString: databaseUrl })
        await db.connect()
        const insert = async (status: string, index: number, extra: string, values: unknown[]) => (await db.query(
            `INSERT INTO bridge_swap (id, status, source_chain, source_token, target_chain, target_token, source_amount, target_wallet, refund_address,
                route_kind, route, fee_bps, deposit_family, deposit_index, deposit_address, watch_from_block, expires_at${extra ? `, ${extra}` : ''})
             VALUES (gen_random_uuid(), $1, 'NATIVECHAIN', 'NATIVE', 'ETHEREUM', 'USDT', 500000000000000000, $2, $2, 'pool', $3, 250, 'evm', $4, $5, 0,
                now() - interval '1 minute'${values.map((_, i) => `, $${i + 6}`).join('')}) RETURNING id`,
            // A fresh deposit address that nothing ever pays: the monitor watches an ended swap's address for late deposits.
            [status, account(5).address, { kind: 'pool', legs: [], min_amount: '0.001', max_amount: '1000' }, index,
                getAddress(`0x${randomBytes(20).toString('hex')}`), ...values],
        )).rows[0].id as string
        let failed: string
        let expired: string
        try {
            failed = await insert('failed', 9_000_001, 'deposit_tx_hash, deposit_amount, refund_status, refund_tx_hash, refund_amount, error_message',
                [hash('ab'), '500000000000000000', 'sent', hash('cd'), '490000000000000000', reason])
            expired = await insert('expired', 9_000_002, '', [])
        } finally {
            await db.end()
        }

        await page.goto(`${bridge.url}/swap/${failed}`)
        await page.waitForFunction(() => document.getElementById('status').dataset.status === 'failed', WAIT)
        expect(await page.$eval('#refund', (e: any) => e.hidden)).to.equal(false)
        expect(await refundLines()).to.deep.equal([`Reason: ${reason}`, `Refunded 0.49 NATIVE to ${account(5).address}.`])
        // The reason's markup stayed text.
        expect(await page.$$eval('#refund *', (nodes: any[]) => nodes.map((n) => n.tagName))).to.deep.equal(['H2', 'DIV', 'P', 'P'])
        expect(await textOf('deposit-tx')).to.equal(hash('ab'))
        expect(await textOf('refund-tx')).to.equal(hash('cd'))
        expect(await textOf('expiry')).to.match(/^Deposit window closed: /)
        await screenshot('refunded')

        await page.goto(`${bridge.url}/swap/${expired}`)
        await page.waitForFunction(() => document.getElementById('status').dataset.status === 'expired', WAIT)
        expect(await refundLines()).to.deep.equal(['The swap expired before a deposit arrived.'])
        expect(problems).to.deep.equal([])
    })

    for (const [what, id] of [['an unknown id', randomUUID()], ['a malformed id', 'not-a-swap']]) {
        it(`${what}: the page loads, with its CSP, and says the swap is not found`, async function () {
            const response = await page.goto(`${bridge.url}/swap/${id}`)
            expect(response!.status()).to.equal(200)
            expect(response!.headers()['content-security-policy']).to.equal(PAGE_CSP)
            await page.waitForFunction(() => document.getElementById('message').textContent.startsWith('Swap not found'), WAIT)
            expect(await page.$eval('#swap', (e: any) => e.hidden)).to.equal(true)
            const qr = await fetch(`${bridge.url}/swap/${id}/qr.svg`)
            expect(qr.status).to.equal(id === 'not-a-swap' ? 400 : 404)
            expect(((await qr.json()) as any).error.code).to.equal(id === 'not-a-swap' ? 'invalid_request' : 'not_found')
            // The page asks the API, which answers the 404 (or, for a malformed id, the page asks nothing).
            expect(problems.splice(0).sort()).to.deep.equal(id === 'not-a-swap' ? [] : [`404 /api/swap/${id}`, `404 /api/swap/${id}/events`])
        })
    }

    it('serves its script and style with the CSP, and nothing outside the assets folder', async function () {
        for (const [file, type] of [['swap.js', /^(application|text)\/javascript/], ['swap.css', /^text\/css/]] as const) {
            const res = await fetch(`${bridge.url}/swap/assets/${file}`)
            expect(res.status, file).to.equal(200)
            expect(res.headers.get('content-type'), file).to.match(type)
            expect(res.headers.get('content-security-policy'), file).to.equal(PAGE_CSP)
        }
        expect((await fetch(`${bridge.url}/swap/assets/..%2Fswap.html`)).status).to.equal(404)
    })
})
