// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {ERC721URIStorage} from "@openzeppelin/contracts/token/ERC721/extensions/ERC721URIStorage.sol";

/// @dev Test ERC-721 that anyone can mint with a per-token URI (data:, http or ipfs metadata) and any owner can burn.
contract TestErc721 is ERC721URIStorage {
    constructor(string memory name_, string memory symbol_) ERC721(name_, symbol_) {}

    function mint(address to, uint256 tokenId, string calldata uri) external {
        _mint(to, tokenId);
        _setTokenURI(tokenId, uri);
    }

    function burn(uint256 tokenId) external {
        // The owner or an approved operator only, as OpenZeppelin's ERC721Burnable checks.
        _update(address(0), tokenId, _msgSender());
    }
}
