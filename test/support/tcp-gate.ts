import * as net from 'net'

/**
 * A TCP forwarder on loopback in front of a server (Postgres), that a test can cut: close() ends
 * every connection through it and refuses new ones, as a database host gone from the network would.
 */
export class TcpGate {
    private readonly sockets = new Set<net.Socket>()
    private server?: net.Server
    port = 0

    constructor(private readonly target: { host: string; port: number }) {}

    async open(): Promise<void> {
        this.server = net.createServer((client) => {
            const upstream = net.connect(this.target.port, this.target.host)
            for (const socket of [client, upstream]) {
                this.sockets.add(socket)
                socket.on('close', () => this.sockets.delete(socket))
                socket.on('error', () => socket.destroy())
            }
            client.pipe(upstream).pipe(client)
            client.on('close', () => upstream.destroy())
            upstream.on('close', () => client.destroy())
        })
        await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve))
        this.port = (this.server.address() as net.AddressInfo).port
    }

    async close(): Promise<void> {
        const closed = new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve())
        for (const socket of this.sockets) socket.destroy()
        await closed
    }

    /** databaseUrl with its host and port replaced by the gate's. */
    static async before(databaseUrl: string): Promise<{ gate: TcpGate; url: string }> {
        const parsed = new URL(databaseUrl)
        const gate = new TcpGate({ host: parsed.hostname, port: Number(parsed.port) })
        await gate.open()
        parsed.hostname = '127.0.0.1'
        parsed.port = String(gate.port)
        return { gate, url: parsed.toString() }
    }
}
