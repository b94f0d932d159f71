import {Entity as Entity_, Column as Column_, PrimaryColumn as PrimaryColumn_, StringColumn as StringColumn_, Index as Index_, IntColumn as IntColumn_} from "@subsquid/typeorm-store"

/**
 * Contracts detected as proxies (docs/indexer.md#proxies): the implementation as read from the node at the end of the batch that created the proxy or saw its last Upgraded / BeaconUpgraded event.
 */
@Entity_()
export class ProxyContract {
    constructor(props?: Partial<ProxyContract>) {
        Object.assign(this, props)
    }

    /**
     * proxy address
     */
    @PrimaryColumn_()
    id!: string

    /**
     * Blockscout's proxy_type: eip1167, eip1967, eip1967_beacon, eip1822 or master_copy
     */
    @StringColumn_({nullable: false})
    proxyType!: string

    /**
     * lowercase address of the implementation
     */
    @Index_()
    @StringColumn_({nullable: false})
    implementation!: string

    /**
     * the beacon of an eip1967_beacon proxy
     */
    @Index_()
    @StringColumn_({nullable: true})
    beacon!: string | undefined | null

    /**
     * the block whose state the implementation was read at
     */
    @IntColumn_({nullable: false})
    block!: number
}
