import express from 'express'
import * as path from 'path'
import QRCode from 'qrcode'
import { z } from 'zod'
import { ApiDoc, DocumentedRouter } from '../../common/service/api-doc'
import { EngineContext } from '../engine/context'
import { SwapParams, swapByParams } from './swaps'

/** GET /swap/:id, a page that follows one swap, and its QR code and assets: docs/bridge/README.md#swap-page */

/**
 * The page is read from the source tree, not copied into lib/: from lib/bridge/http/ this is
 * bridge/http/page/ (the Dockerfile copies that folder into the image).
 */
export const PAGE_DIR = path.resolve(__dirname, '../../../bridge/http/page')

/** Scripts, styles, images and connections (the API, the WebSocket) from this origin only; nothing inline. */
export const PAGE_CSP = [
    "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self'", "connect-src 'self'",
    "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
].join('; ')

/** How the deposit address is drawn; the page's test draws it the same way to compare. */
export const QR_OPTIONS = { type: 'svg', errorCorrectionLevel: 'M', margin: 2 } as const

/** The page's icon, an SVG, at the path browsers ask for by default too (so none of them gets a 404). */
export function faviconRoutes(doc: ApiDoc): DocumentedRouter {
    const router = doc.router('/', 'Swap page')
    router.get('/favicon.ico', {
        operationId: 'getFavicon',
        summary: 'The swap page\'s icon (SVG)',
        responses: { 200: { description: 'An SVG image', schema: z.string(), contentType: 'image/svg+xml' } },
    }, (_req, res, next) => {
        res.set({ 'Content-Security-Policy': PAGE_CSP, 'Cache-Control': 'max-age=86400' }).type('image/svg+xml')
        res.sendFile(path.join(PAGE_DIR, 'favicon.svg'), (err) => err && next(err))
    })
    return router
}

export function swapPageRoutes(ctx: EngineContext, doc: ApiDoc): DocumentedRouter {
    const router = doc.router('/swap', 'Swap page')
    router.use((_req, res, next) => {
        res.set({ 'Content-Security-Policy': PAGE_CSP, 'Referrer-Policy': 'no-referrer' })
        next()
    })
    // The script and style: files, not API routes, so left out of the OpenAPI document as Swagger UI's are.
    router.use(express.Router().use('/assets', express.static(path.join(PAGE_DIR, 'assets'), { index: false, redirect: false })))

    router.get('/:id', {
        operationId: 'getSwapPage',
        summary: 'A page that follows the swap: deposit address and QR code, amount, expiry, each status as it happens, transactions, refund',
        description: 'The same static page for any id: it reads GET /api/swap/{id} and says "swap not found" when that answers 400 or 404. docs/bridge/README.md#swap-page',
        params: z.object({ id: z.string() }),
        responses: {
            200: { description: 'The page', schema: z.string(), contentType: 'text/html' },
            400: 'The id is not valid percent-encoding',
        },
    }, (_req, res, next) => {
        res.sendFile(path.join(PAGE_DIR, 'swap.html'), { headers: { 'Cache-Control': 'no-cache' } }, (err) => err && next(err))
    })

    router.get('/:id/qr.svg', {
        operationId: 'getSwapQrCode',
        summary: 'The swap\'s deposit address as a QR code',
        params: SwapParams,
        responses: {
            200: { description: 'An SVG image encoding exactly the deposit address', schema: z.string(), contentType: 'image/svg+xml' },
            400: 'id is not a UUID (invalid_request, field id)',
            404: 'No swap with this id (not_found)',
        },
    }, async (req, res) => {
        const swap = await swapByParams(ctx, req.params)
        const svg = await QRCode.toString(swap.depositAddress, QR_OPTIONS)
        // A swap's deposit address never changes.
        res.type('image/svg+xml').set('Cache-Control', 'max-age=86400').send(svg)
    })
    return router
}
