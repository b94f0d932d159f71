import {Entity as Entity_, Column as Column_, PrimaryColumn as PrimaryColumn_, StringColumn as StringColumn_, IntColumn as IntColumn_, DateTimeColumn as DateTimeColumn_, BigIntColumn as BigIntColumn_} from "@subsquid/typeorm-store"

@Entity_()
export class CoinBalance {
    constructor(props?: Partial<CoinBalance>) {
        Object.assign(this, props)
    }

    /**
     * address-block
     */
    @PrimaryColumn_()
    id!: string

    @StringColumn_({nullable: false})
    address!: string

    @IntColumn_({nullable: false})
    blockNumber!: number

    @DateTimeColumn_({nullable: false})
    timestamp!: Date

    /**
     * balance after the block
     */
    @BigIntColumn_({nullable: false})
    value!: bigint

    /**
     * change during the block
     */
    @BigIntColumn_({nullable: false})
    delta!: bigint

    /**
     * the last transaction of the block that changed it; null when no transaction did (a reward)
     */
    @StringColumn_({nullable: true})
    transactionHash!: string | undefined | null
}
