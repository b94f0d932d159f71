import {Entity as Entity_, Column as Column_, PrimaryColumn as PrimaryColumn_, Index as Index_, StringColumn as StringColumn_, BigIntColumn as BigIntColumn_, IntColumn as IntColumn_} from "@subsquid/typeorm-store"

/**
 * One NFT (ERC-721 or ERC-1155 token id), created by its first transfer (docs/indexer.md#nfts). Its transfers
 * are found by a partial index of token_transfer (token, token_id, ...) kept in the migration.
 */
@Index_(["token", "tokenId"], {unique: true})
@Index_(["owner", "token", "tokenId"], {unique: false})
@Entity_()
export class TokenInstance {
    constructor(props?: Partial<TokenInstance>) {
        Object.assign(this, props)
    }

    /**
     * token-tokenId
     */
    @PrimaryColumn_()
    id!: string

    @StringColumn_({nullable: false})
    token!: string

    @BigIntColumn_({nullable: false})
    tokenId!: bigint

    /**
     * ERC-721: the current owner, the zero address once burnt; null for ERC-1155 (its holders are NftBalance rows)
     */
    @StringColumn_({nullable: true})
    owner!: string | undefined | null

    /**
     * transfers of this id (a TokenTransfer row each)
     */
    @IntColumn_({nullable: false})
    transferCount!: number

    @IntColumn_({nullable: false})
    firstBlock!: number
}
