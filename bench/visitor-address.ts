// The default import is the module object autocannon's client calls (`import * as` would be a copy).
import net from 'net'

let clients = 0

/**
 * autocannon's `setupClient` for `bench:abuse`'s visitors through the gateway, given as this
 * module's path so its worker threads can load it. Each connection is a visitor of its own, from
 * 127.0.0.2, 127.0.0.3, ... (Linux routes all of 127.0.0.0/8 to the loopback interface): other
 * clients than the flood's 127.0.0.1, each well within the gateway's limits per IP. autocannon
 * connects with `net.connect(port, host)` and has no option for the source address, so the
 * client's connect is wrapped to pass one.
 */
function connectFromVisitorAddress(client: { _connect(): void }): void {
    const connect = client._connect
    const localAddress = connectFromVisitorAddress.address(clients++)
    client._connect = function (this: unknown) {
        const original = net.connect
        ;(net as any).connect = (port: number, host: string) => original({ port, host, localAddress })
        try {
            connect.call(this)
        } finally {
            (net as any).connect = original
        }
    }
}

/** The source address of the n-th visitor (from 0). */
connectFromVisitorAddress.address = (n: number) => `127.0.0.${2 + n}`

export = connectFromVisitorAddress
