import { expect } from 'chai'
import WebSocket from 'ws'

/** A Phoenix V2 frame: [join_ref, ref, topic, event, payload]. */
export type Frame = [string | null, string | null, string, string, any]

/** A client of the chain API's Phoenix-channels socket (/socket/v2/websocket?vsn=2.0.0), as the Blockscout frontend speaks it. */
export class PhoenixClient {
    private frames: Frame[] = []
    private waiters: (() => void)[] = []
    private ref = 0
    private constructor(private ws: WebSocket) {
        ws.on('message', (data) => {
            this.frames.push(JSON.parse(data.toString()))
            for (const w of this.waiters.splice(0)) w()
        })
    }

    /** `from`: the local address to connect from (any of 127.0.0.0/8), i.e. the client IP the server sees. */
    static async connect(url: string, from?: string): Promise<PhoenixClient> {
        const ws = new WebSocket(url, from ? { localAddress: from } : {})
        await new Promise<void>((resolve, reject) => {
            ws.once('open', () => resolve())
            ws.once('error', reject)
            ws.once('unexpected-response', (_req, res) => reject(new Error(`socket handshake answered HTTP ${res.statusCode}`)))
        })
        return new PhoenixClient(ws)
    }

    nextRef(): string {
        return String(++this.ref)
    }

    send(frame: Frame): void {
        this.ws.send(JSON.stringify(frame))
    }

    /** The first frame (received so far or later) matching, removed from the buffer. */
    async next(what: string, match: (f: Frame) => boolean, timeoutMs = 60_000): Promise<Frame> {
        const deadline = Date.now() + timeoutMs
        for (;;) {
            const i = this.frames.findIndex(match)
            if (i >= 0) return this.frames.splice(i, 1)[0]
            const left = deadline - Date.now()
            if (left <= 0) {
                expect.fail(`no ${what} within ${timeoutMs} ms; frames received: ${JSON.stringify(this.frames).slice(0, 1500)}`)
            }
            await new Promise<void>((resolve) => {
                const timer = setTimeout(resolve, left)
                this.waiters.push(() => {
                    clearTimeout(timer)
                    resolve()
                })
            })
        }
    }

    async join(topic: string): Promise<string> {
        const joinRef = this.nextRef()
        this.send([joinRef, joinRef, topic, 'phx_join', {}])
        const reply = await this.next(`phx_reply to joining ${topic}`, (f) => f[1] === joinRef && f[3] === 'phx_reply', 15_000)
        expect(reply).to.deep.equal([joinRef, joinRef, topic, 'phx_reply', { status: 'ok', response: {} }])
        return joinRef
    }

    /** The frames received so far that match, left in the buffer. */
    received(match: (f: Frame) => boolean): Frame[] {
        return this.frames.filter(match)
    }

    close(): void {
        this.ws.close()
    }
}
