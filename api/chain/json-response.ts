import { NextFunction, Request, Response } from 'express'
import { gzip } from 'zlib'

/** Below this a response goes out as it is: compressing it would save less than it costs. */
const MIN_BYTES = 4096

/**
 * Sends JSON text (a string, or bytes a list assembled from rendered items) as the answer, gzipped
 * when the client accepts it. Compression uses zlib's one-shot async call, so it runs on libuv's
 * thread pool, off the event loop (a streaming middleware compresses on the event loop). A list
 * page is 50-150 KB of JSON that shrinks about tenfold, and browsers always ask for it; the bytes
 * saved are what the network, and the kernel, no longer carry.
 */
export function sendJson(res: Response, body: string | Buffer): void {
    res.type('json')
    if (body.length < MIN_BYTES || !res.req.acceptsEncodings('gzip')) return void res.send(body)
    gzip(body, { level: 1 }, (err, compressed) => {
        if (err) return void res.send(body)
        res.set('Content-Encoding', 'gzip')
        res.send(compressed)
    })
}

/** JSON text made once and sent many times, with its gzip made once too (when it is worth it). */
export interface EncodedJson {
    body: Buffer
    gzipped?: Buffer
}

export async function encodeJson(body: Buffer): Promise<EncodedJson> {
    if (body.length < MIN_BYTES) return { body }
    const gzipped = await new Promise<Buffer>((resolve, reject) => gzip(body, (err, out) => (err ? reject(err) : resolve(out))))
    return { body, gzipped }
}

export function sendEncoded(res: Response, encoded: EncodedJson): void {
    res.type('json')
    if (!encoded.gzipped || !res.req.acceptsEncodings('gzip')) return void res.send(encoded.body)
    res.set('Content-Encoding', 'gzip')
    res.send(encoded.gzipped)
}

/** Routes every res.json of the chain API through sendJson. */
export function jsonResponses(_req: Request, res: Response, next: NextFunction): void {
    res.vary('Accept-Encoding')
    res.json = (body: unknown) => {
        sendJson(res, JSON.stringify(body) ?? 'null')
        return res
    }
    next()
}
