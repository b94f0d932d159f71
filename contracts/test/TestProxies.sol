// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @dev Forwards every call to an implementation with delegatecall, returning or reverting with its data.
abstract contract Forwarding {
    function _forward(address implementation) internal {
        assembly {
            calldatacopy(0, 0, calldatasize())
            let ok := delegatecall(gas(), implementation, 0, calldatasize(), 0, 0)
            returndatacopy(0, 0, returndatasize())
            if iszero(ok) { revert(0, returndatasize()) }
            return(0, returndatasize())
        }
    }
}

/// @dev EIP-1967 proxy: the logic address at the logic slot, upgraded by its admin.
contract Eip1967Proxy is Forwarding {
    bytes32 private constant LOGIC_SLOT = 0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc;
    bytes32 private constant ADMIN_SLOT = 0xb53127684a568b3173ae13b9f8a6016e243e63b6e8ee1178d6a717850b5d6103;

    event Upgraded(address indexed implementation);

    constructor(address logic) {
        assembly { sstore(ADMIN_SLOT, caller()) }
        _setLogic(logic);
    }

    /// @dev Named apart from any implementation function, so the selectors cannot clash.
    function upgradeProxyTo(address logic) external {
        address admin;
        assembly { admin := sload(ADMIN_SLOT) }
        require(msg.sender == admin, "not admin");
        _setLogic(logic);
    }

    function _setLogic(address logic) private {
        assembly { sstore(LOGIC_SLOT, logic) }
        emit Upgraded(logic);
    }

    fallback() external payable {
        address logic;
        assembly { logic := sload(LOGIC_SLOT) }
        _forward(logic);
    }
}

/// @dev EIP-1822 (UUPS) proxy: the logic address at keccak256("PROXIABLE").
contract Eip1822Proxy is Forwarding {
    bytes32 private constant PROXIABLE_SLOT = 0xc5f16f0fcc639fa48a6947836d9850f504798523bf8c9a3a87d5876cf622bcf7;

    constructor(address logic) {
        assembly { sstore(PROXIABLE_SLOT, logic) }
    }

    fallback() external payable {
        address logic;
        assembly { logic := sload(PROXIABLE_SLOT) }
        _forward(logic);
    }
}

/// @dev The beacon of EIP-1967 beacon proxies: holds the implementation, emits Upgraded when it changes.
contract TestBeacon {
    address public implementation;
    address private immutable owner;

    event Upgraded(address indexed implementation);

    constructor(address logic) {
        owner = msg.sender;
        implementation = logic;
        emit Upgraded(logic);
    }

    function upgradeTo(address logic) external {
        require(msg.sender == owner, "not owner");
        implementation = logic;
        emit Upgraded(logic);
    }
}

/// @dev EIP-1967 beacon proxy: the beacon at the beacon slot, the implementation asked of the beacon on every call.
contract TestBeaconProxy is Forwarding {
    bytes32 private constant BEACON_SLOT = 0xa3f0ad74e5423aebfd80d3ef4346578335a9a72aeab7ee2c2c8b8dd2cf2a1a9d;

    event BeaconUpgraded(address indexed beacon);

    constructor(address beacon) {
        assembly { sstore(BEACON_SLOT, beacon) }
        emit BeaconUpgraded(beacon);
    }

    fallback() external payable {
        address beacon;
        assembly { beacon := sload(BEACON_SLOT) }
        _forward(TestBeacon(beacon).implementation());
    }
}

/// @dev Gnosis Safe's proxy: masterCopy at slot 0, answered by masterCopy() (selector 0xa619486e), the rest forwarded.
contract SafeLikeProxy {
    address internal masterCopy;

    constructor(address singleton) {
        masterCopy = singleton;
    }

    fallback() external payable {
        assembly {
            let singleton := and(sload(0), 0xffffffffffffffffffffffffffffffffffffffff)
            if eq(calldataload(0), 0xa619486e00000000000000000000000000000000000000000000000000000000) {
                mstore(0, singleton)
                return(0, 0x20)
            }
            calldatacopy(0, 0, calldatasize())
            let ok := delegatecall(gas(), singleton, 0, calldatasize(), 0, 0)
            returndatacopy(0, 0, returndatasize())
            if iszero(ok) { revert(0, returndatasize()) }
            return(0, returndatasize())
        }
    }
}

/// @dev Creates EIP-1167 minimal clones (OpenZeppelin's Clones bytecode), so the clone is created by a call frame.
contract CloneFactory {
    event Cloned(address clone);

    function clone(address implementation) external returns (address instance) {
        assembly {
            mstore(0x00, or(shr(0xe8, shl(0x60, implementation)), 0x3d602d80600a3d3981f3363d3d373d3d3d363d73000000))
            mstore(0x20, or(shl(0x78, implementation), 0x5af43d82803e903d91602b57fd5bf3))
            instance := create(0, 0x09, 0x37)
        }
        require(instance != address(0), "clone failed");
        emit Cloned(instance);
    }
}
