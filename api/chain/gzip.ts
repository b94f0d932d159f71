import { NextFunction, Request, Response } from 'express'
import { gzip } from 'zlib'

/** Below this a response goes out as it is: compressing it would save less than it costs. */
const MIN_BYTES = 4096

/**
 * gzip for the API's JSON answers, done with zlib's one-shot async call so the compression runs on
 * libuv's thread pool, off the event loop (a streaming middleware compresses on the event loop).
 * A list page is 50-150 KB of JSON that shrinks about tenfold, and browsers always ask for it;
 * the bytes saved are what the network, and the kernel, no longer carry.
 */
export function gzipJson(req: Request, res: Response, next: NextFunction): void {
    res.vary('Accept-Encoding')
    if (!req.acceptsEncodings('gzip')) return next()
    const plain = res.json.bind(res)
    res.json = (body: unknown) => {
        const text = JSON.stringify(body)
        if (text === undefined || text.length < MIN_BYTES) return plain(body)
        gzip(text, { level: 1 }, (err, compressed) => {
            res.type('json')
            if (err) return void res.send(text)
            res.set('Content-Encoding', 'gzip')
            res.send(compressed)
        })
        return res
    }
    next()
}
