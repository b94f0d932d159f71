// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";

/// @dev Test ERC-721 whose tokenURI is set per token id, and which answers ERC-1155's uri(id) with a
/// settable template: the NFT metadata fetcher's tests point them at loopback servers.
contract MetadataTestNft is ERC721 {
    mapping(uint256 => string) private uris;
    string private template;

    constructor() ERC721("Metadata Test NFT", "MTN") {}

    function mint(address to, uint256 tokenId, string calldata tokenUri) external {
        uris[tokenId] = tokenUri;
        _mint(to, tokenId);
    }

    function setTokenURI(uint256 tokenId, string calldata tokenUri) external {
        uris[tokenId] = tokenUri;
    }

    function setUri(string calldata value) external {
        template = value;
    }

    function tokenURI(uint256 tokenId) public view override returns (string memory) {
        _requireOwned(tokenId);
        return uris[tokenId];
    }

    function uri(uint256) external view returns (string memory) {
        return template;
    }
}
