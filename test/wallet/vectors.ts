/**
 * Test wallets and the answers of a real Bitcoin Core node for them, frozen.
 *
 * How they were obtained (once, by hand, 2026-11-25 — not at test time):
 * - keys: BIP32 masters from the seeds sha256("spyglass wallet test cosigner 1|2|3") (@scure/bip32,
 *   testnet versions), accounts m/48'/1'/0'/2' (P2WSH), m/48'/1'/0'/1' (P2SH-P2WSH), m/45' (P2SH),
 *   and for cosigner 1 m/44'/1'/0', m/49'/1'/0', m/84'/1'/0', m/86'/1'/0'; only the public keys are kept;
 * - inputs: a Caravan JSON, a Coldcard file (SLIP-132 Vpub keys), a Specter JSON, Sparrow's
 *   multipath text, and four extended-key imports, written by hand in each format;
 * - node: Bitcoin Core /Satoshi:31.99.0/ (../shared/core, unpack.sh 31.99) on a private regtest
 *   datadir: `getdescriptorinfo` of each imported wallet's receive and change descriptor (its
 *   checksum is the one in `external`/`internal`), `deriveaddresses` for [0,2] and [9999,9999] of
 *   each, then a blank watch-only wallet per test wallet (`createwallet … true true`,
 *   `importdescriptors` active, range [0,10]): `getaddressinfo` of address 2 of each branch
 *   (`desc`, `hdkeypath`), and `getnewaddress`/`getrawchangeaddress` (equal to index 0).
 */

export const COSIGNERS = [
  {
    "fingerprint": "a74008ce",
    "p2wsh": "tpubDFS8humXq8S9CmyJjmUsbDcYAUoEZXd73TbS9SwfSLAr3G9Tjf4nEHV9P1ShtccvWeEr2DPEys7Tq15t6f4eEWV6GH2PZSDn4biSAbNCbpm",
    "p2shP2wsh": "tpubDFS8humXq8S9Ags1cpRwjN51W7ofwMVPvJr8KHvXdmxiCweT6o4Pjfo26Kz7EXXDj3BrpLJsaZr9ThP61x7HJz9iqsf2Xku8sPHnAfqcHLb",
    "p2sh": "tpubD9VRnEHinAWbZg5x7ZuxrrpKNp9cgT2gbVowr2X7cNtitws4zdTFsmX4yrirU2QhuzoUF6nB2Q3U1Xdft7S6cG3syBQrXqpuYVarAjVqPNW"
  },
  {
    "fingerprint": "3eaaf796",
    "p2wsh": "tpubDF5jwZr5LeMN6Mckavhn6adjZXcbZdk5zJqaUTNHhAo9Ztjy9cK7m2x3wXP8bQ6iJZcV1461Dh7FHoGc7k6PUFbiQ5fapBaB9XtbcUVxkCf",
    "p2shP2wsh": "tpubDF5jwZr5LeMN3kQrvEfN2d18yfr6kfULdbfmES6ELQ1pWguVnPpX6wjH575DK3fgTCKaLQzBN4AYYXSuZXP1e6Yp4n4qEJMvLJh5uXjHnwQ",
    "p2sh": "tpubD8iqssPWwcnrH6fCjMQuWak5MxBDA6MrCVnnuv73Y4iDWSGXD6Lx13yyAg3vBmH1udXBxQczAhgEG1ztJsfSbsEXoVsjD294kZZU8S664VD"
  },
  {
    "fingerprint": "77863c36",
    "p2wsh": "tpubDEiQYerruvPTsjtgot7Jh4Fgz7yi8FVSis2VyZSjpEd3gf7o7SWPNZ3jbWPh9XEBsC28P87JiRx8ekJRZtXkW4bSfXnvVG8Lvim1D5ePLRc",
    "p2shP2wsh": "tpubDEiQYerruvPTox9Apyx8YcmQQprftSsoCv4Q412RXp2yiEnNswtcmSxRsii6ZPYUHwHxFSyPyPcLSJHbJA3b7fd3ewxcBkcS5kvRvvEmmMU",
    "p2sh": "tpubD995iHSSPpaG5NyQnKC3PYWgnrN6gdwDtuiTgfWMXN7rce2UWLDj4EuBG4EXjZrm2cmW5qSHE3QUhmdnVtVfLeeGBtuPQ3U51dgncVHcVeE"
  }
] as const;

export const SINGLE = {
  "fingerprint": "a74008ce",
  "bip44": "tpubDDo1FXykrj2sB9Utwai8QnSuVHkkxSXcwqwSuVGdN9MG7kQdehTcoqKhD4Hh92KDjpKgmbBBWHCJT2UBpBzrqxLc1Mf9sg6KYR3HoTAxiNy",
  "bip49": "tpubDC3G9RWH83LDoXwd52MzYmrDCdJaRqZg2xftZU5RM45TNNcWU9NgepQ4vz8hME3P9UuY36hhghf2kdQrEdQ5SYYW3CLRGmYGkcn8VtDEQ9E",
  "bip84": "tpubDCD5ZxcTN1Ys3jJKUsHsGUcGnD5N7ykNh7f2unAJ8tMBwfFBS2pVCSxG2FmPGzAdJMby7mtDWgyjnW5PJE3yAYXHMAxr5cXovL7dW7p2SzV",
  "bip86": "tpubDCxYP6nq6u9hELMtpUuPNyFreYuzwqhTMoiYZxsGL7yfR1FqEbekHDTWs9J9URQQRNy2rfa5Kutj5Eg1dK81aWxcrt62J6TpqrMHeKSQACF"
} as const;

export interface NodeAnswers {
  scriptType: string;
  external: string;
  internal: string;
  node: {
    receive: { '0-2': string[]; '9999': string };
    change: { '0-2': string[]; '9999': string };
    addressinfo: Record<'receive' | 'change', { address: string; desc: string; hdkeypath?: string }>;
  };
}

/** File contents, as a user would paste or open them. */
export const FILES = {
  "caravan": "{\n  \"name\": \"Caravan vault\",\n  \"addressType\": \"P2SH-P2WSH\",\n  \"network\": \"regtest\",\n  \"client\": {\n    \"type\": \"public\"\n  },\n  \"quorum\": {\n    \"requiredSigners\": 2,\n    \"totalSigners\": 3\n  },\n  \"extendedPublicKeys\": [\n    {\n      \"name\": \"Signer 1\",\n      \"xpub\": \"tpubDFS8humXq8S9Ags1cpRwjN51W7ofwMVPvJr8KHvXdmxiCweT6o4Pjfo26Kz7EXXDj3BrpLJsaZr9ThP61x7HJz9iqsf2Xku8sPHnAfqcHLb\",\n      \"bip32Path\": \"m/48'/1'/0'/1'\",\n      \"xfp\": \"a74008ce\",\n      \"method\": \"text\"\n    },\n    {\n      \"name\": \"Signer 2\",\n      \"xpub\": \"tpubDF5jwZr5LeMN3kQrvEfN2d18yfr6kfULdbfmES6ELQ1pWguVnPpX6wjH575DK3fgTCKaLQzBN4AYYXSuZXP1e6Yp4n4qEJMvLJh5uXjHnwQ\",\n      \"bip32Path\": \"m/48'/1'/0'/1'\",\n      \"xfp\": \"3eaaf796\",\n      \"method\": \"text\"\n    },\n    {\n      \"name\": \"Signer 3\",\n      \"xpub\": \"tpubDEiQYerruvPTox9Apyx8YcmQQprftSsoCv4Q412RXp2yiEnNswtcmSxRsii6ZPYUHwHxFSyPyPcLSJHbJA3b7fd3ewxcBkcS5kvRvvEmmMU\",\n      \"bip32Path\": \"m/48'/1'/0'/1'\",\n      \"xfp\": \"77863c36\",\n      \"method\": \"text\"\n    }\n  ],\n  \"startingAddressIndex\": 0\n}",
  "coldcard": "# Coldcard Multisig setup file (exported from Sparrow)\n#\nName: CC vault\nPolicy: 2 of 3\nDerivation: m/48'/1'/0'/2'\nFormat: P2WSH\n\nA74008CE: Vpub5nJ4haLTPSx6exZbZXPWoCRyDDSwuFpdyscN9NNHiBVboxRCvXGqvqMxuGQDvjak8vYJnGgNQexpVQyuZdYKu5nGJTze7VPZpvGcDJ9d4FR\n3EAAF796: Vpub5mwfwEQztxsKYYD3QgcRJZTAcGGJuMwcvirWUNnuy27uLb1iLUXBTapsTnLedX4Xvquwm7P8eUxbxDAdaia58pttSGdqNEjxurSmfBPkKXg\n77863C36: Vpub5maLYKRnUEuRKvUyde1wu3582rdRTygyfH3RyUsN65woTMPYJJiT56vZ7mMDBeC1VUKb9BQS9DoVKACT2s1SAdtchimB3KJ8h3KBFpoVmCi\n",
  "specter": "{\"label\":\"Specter legacy\",\"blockheight\":150,\"descriptor\":\"sh(sortedmulti(2,[a74008ce/45h]tpubD9VRnEHinAWbZg5x7ZuxrrpKNp9cgT2gbVowr2X7cNtitws4zdTFsmX4yrirU2QhuzoUF6nB2Q3U1Xdft7S6cG3syBQrXqpuYVarAjVqPNW/0/*,[3eaaf796/45h]tpubD8iqssPWwcnrH6fCjMQuWak5MxBDA6MrCVnnuv73Y4iDWSGXD6Lx13yyAg3vBmH1udXBxQczAhgEG1ztJsfSbsEXoVsjD294kZZU8S664VD/0/*,[77863c36/45h]tpubD995iHSSPpaG5NyQnKC3PYWgnrN6gdwDtuiTgfWMXN7rce2UWLDj4EuBG4EXjZrm2cmW5qSHE3QUhmdnVtVfLeeGBtuPQ3U51dgncVHcVeE/0/*))\",\"devices\":[{\"type\":\"coldcard\",\"label\":\"CC\"},{\"type\":\"trezor\",\"label\":\"T\"},{\"type\":\"specter\",\"label\":\"S\"}]}",
  "sparrow": "# Receive and change descriptor (BIP389):\nwsh(multi(2,[a74008ce/48h/1h/0h/2h]tpubDFS8humXq8S9CmyJjmUsbDcYAUoEZXd73TbS9SwfSLAr3G9Tjf4nEHV9P1ShtccvWeEr2DPEys7Tq15t6f4eEWV6GH2PZSDn4biSAbNCbpm/<0;1>/*,[3eaaf796/48h/1h/0h/2h]tpubDF5jwZr5LeMN6Mckavhn6adjZXcbZdk5zJqaUTNHhAo9Ztjy9cK7m2x3wXP8bQ6iJZcV1461Dh7FHoGc7k6PUFbiQ5fapBaB9XtbcUVxkCf/<0;1>/*,[77863c36/48h/1h/0h/2h]tpubDEiQYerruvPTsjtgot7Jh4Fgz7yi8FVSis2VyZSjpEd3gf7o7SWPNZ3jbWPh9XEBsC28P87JiRx8ekJRZtXkW4bSfXnvVG8Lvim1D5ePLRc/<0;1>/*))\n"
};

/** Extended-key form inputs. */
export const KEY_INPUTS = {
  "vpub": {
    "xpub": "vpub5YAvSPSwMNWT5LjEMxjXeP5u79gpFMGKKG2HzSKP2xqY6Ax1rVeGosy9jomRkfuYhAqT1FBE4GSbKkMeTyNhgdhnYtphEGEbnvPvy1dumRK",
    "fingerprint": "a74008ce",
    "path": "m/84'/1'/0'"
  },
  "upub": {
    "xpub": "[a74008ce/49h/1h/0h]upub5DAqiBfqxikKyrBR7m22ibELMbmacb67jzWvrjLcs8BvTnW7dx2ueBkpdLB9q18P8f2DB6Q9mcmLQb5YggJoAQ3QNaVqqWRaMUzna8zMM4b"
  },
  "tpub44": {
    "xpub": "tpubDDo1FXykrj2sB9Utwai8QnSuVHkkxSXcwqwSuVGdN9MG7kQdehTcoqKhD4Hh92KDjpKgmbBBWHCJT2UBpBzrqxLc1Mf9sg6KYR3HoTAxiNy",
    "fingerprint": "a74008ce",
    "path": "m/44h/1h/0h"
  },
  "tr86": {
    "xpub": "tpubDCxYP6nq6u9hELMtpUuPNyFreYuzwqhTMoiYZxsGL7yfR1FqEbekHDTWs9J9URQQRNy2rfa5Kutj5Eg1dK81aWxcrt62J6TpqrMHeKSQACF",
    "fingerprint": "a74008ce",
    "path": "m/86'/1'/0'",
    "scriptType": "p2tr"
  }
} as const;

export const NODE: Record<string, NodeAnswers> = {
  "caravan": {
    "scriptType": "p2sh-p2wsh",
    "external": "sh(wsh(sortedmulti(2,[a74008ce/48h/1h/0h/1h]tpubDFS8humXq8S9Ags1cpRwjN51W7ofwMVPvJr8KHvXdmxiCweT6o4Pjfo26Kz7EXXDj3BrpLJsaZr9ThP61x7HJz9iqsf2Xku8sPHnAfqcHLb/0/*,[3eaaf796/48h/1h/0h/1h]tpubDF5jwZr5LeMN3kQrvEfN2d18yfr6kfULdbfmES6ELQ1pWguVnPpX6wjH575DK3fgTCKaLQzBN4AYYXSuZXP1e6Yp4n4qEJMvLJh5uXjHnwQ/0/*,[77863c36/48h/1h/0h/1h]tpubDEiQYerruvPTox9Apyx8YcmQQprftSsoCv4Q412RXp2yiEnNswtcmSxRsii6ZPYUHwHxFSyPyPcLSJHbJA3b7fd3ewxcBkcS5kvRvvEmmMU/0/*)))#63pppkmj",
    "internal": "sh(wsh(sortedmulti(2,[a74008ce/48h/1h/0h/1h]tpubDFS8humXq8S9Ags1cpRwjN51W7ofwMVPvJr8KHvXdmxiCweT6o4Pjfo26Kz7EXXDj3BrpLJsaZr9ThP61x7HJz9iqsf2Xku8sPHnAfqcHLb/1/*,[3eaaf796/48h/1h/0h/1h]tpubDF5jwZr5LeMN3kQrvEfN2d18yfr6kfULdbfmES6ELQ1pWguVnPpX6wjH575DK3fgTCKaLQzBN4AYYXSuZXP1e6Yp4n4qEJMvLJh5uXjHnwQ/1/*,[77863c36/48h/1h/0h/1h]tpubDEiQYerruvPTox9Apyx8YcmQQprftSsoCv4Q412RXp2yiEnNswtcmSxRsii6ZPYUHwHxFSyPyPcLSJHbJA3b7fd3ewxcBkcS5kvRvvEmmMU/1/*)))#jrpqvcxk",
    "node": {
      "receive": {
        "9999": "2NFHPevk7ZEPy5ur9e6emybQkFxzTakLQ8i",
        "0-2": [
          "2Mwi9u2GtwzxAiJnqbjZkKbrnpq6bFGZXsR",
          "2NEWj4fJUeC6SQcra45QXFWaEeazrhW8SnU",
          "2MtvbKPiHYLnup8An55MF1KZ9iZ82QXkXD7"
        ]
      },
      "change": {
        "9999": "2N9bWxhk8wZRkieW1fHL4pJnE7CQRihk3Hb",
        "0-2": [
          "2NEYVZJJWrey32VoUYfkAUgnTAbpcuq28Lv",
          "2MvG7wSqmR2uhDywSQ3y81gT4Tb7eSsDJHG",
          "2N3NRhaaNwQccpyhw4kgFsPsnkZAmvMuAat"
        ]
      },
      "addressinfo": {
        "receive": {
          "address": "2MtvbKPiHYLnup8An55MF1KZ9iZ82QXkXD7",
          "desc": "sh(wsh(multi(2,[77863c36/48h/1h/0h/1h/0/2]0221ef74b3e228bb745c947b20021d2c4fef83bcba82bca31d476b79d1806f3d00,[a74008ce/48h/1h/0h/1h/0/2]02b86f8ce50cce2b9fe511def75bf580e66090e324c3a816a30c35dc34722d381a,[3eaaf796/48h/1h/0h/1h/0/2]0360dfe94b0617137e8e010810d9b355dce4c885f986099b9cab4fdf446976ea1c)))#q8c4hgx5"
        },
        "change": {
          "address": "2N3NRhaaNwQccpyhw4kgFsPsnkZAmvMuAat",
          "desc": "sh(wsh(multi(2,[77863c36/48h/1h/0h/1h/1/2]0204b243632c4fa0daa5462450edba42d6c2880b4da925b049c4536c1313d55031,[a74008ce/48h/1h/0h/1h/1/2]029381cf38aa3557999eee7a470e36e7ce7c93554fabf6d98dcb6433f41f489daf,[3eaaf796/48h/1h/0h/1h/1/2]03911b2c91033f0c9a97470f3c92f4f6ecd0d7fceb7decf7652418dad471ff977d)))#u2fgely7"
        }
      }
    }
  },
  "coldcard": {
    "scriptType": "p2wsh",
    "external": "wsh(sortedmulti(2,[a74008ce/48h/1h/0h/2h]tpubDFS8humXq8S9CmyJjmUsbDcYAUoEZXd73TbS9SwfSLAr3G9Tjf4nEHV9P1ShtccvWeEr2DPEys7Tq15t6f4eEWV6GH2PZSDn4biSAbNCbpm/0/*,[3eaaf796/48h/1h/0h/2h]tpubDF5jwZr5LeMN6Mckavhn6adjZXcbZdk5zJqaUTNHhAo9Ztjy9cK7m2x3wXP8bQ6iJZcV1461Dh7FHoGc7k6PUFbiQ5fapBaB9XtbcUVxkCf/0/*,[77863c36/48h/1h/0h/2h]tpubDEiQYerruvPTsjtgot7Jh4Fgz7yi8FVSis2VyZSjpEd3gf7o7SWPNZ3jbWPh9XEBsC28P87JiRx8ekJRZtXkW4bSfXnvVG8Lvim1D5ePLRc/0/*))#z8uu5jfs",
    "internal": "wsh(sortedmulti(2,[a74008ce/48h/1h/0h/2h]tpubDFS8humXq8S9CmyJjmUsbDcYAUoEZXd73TbS9SwfSLAr3G9Tjf4nEHV9P1ShtccvWeEr2DPEys7Tq15t6f4eEWV6GH2PZSDn4biSAbNCbpm/1/*,[3eaaf796/48h/1h/0h/2h]tpubDF5jwZr5LeMN6Mckavhn6adjZXcbZdk5zJqaUTNHhAo9Ztjy9cK7m2x3wXP8bQ6iJZcV1461Dh7FHoGc7k6PUFbiQ5fapBaB9XtbcUVxkCf/1/*,[77863c36/48h/1h/0h/2h]tpubDEiQYerruvPTsjtgot7Jh4Fgz7yi8FVSis2VyZSjpEd3gf7o7SWPNZ3jbWPh9XEBsC28P87JiRx8ekJRZtXkW4bSfXnvVG8Lvim1D5ePLRc/1/*))#8jhx25ec",
    "node": {
      "receive": {
        "9999": "bcrt1qfwj5j4x3g0rh2zgz4690e5mp5fd24fej3l63x6l0rl845ks9g62q9ypjgn",
        "0-2": [
          "bcrt1qzzcec5jur9zvlldpgxz9nly2zaz5lleu0kzw3y3pclnejvha8g7q6yqc29",
          "bcrt1qjz5xtd7ylg9f0eu4rt0ts6ccjsrqfp44th26cfm4lyfj4d8mch0qqtrem3",
          "bcrt1qrx0dmfqm8w0s8uvdwzdxchfdy6vzwuqegz4daafy67u4hsjy2gasdn96f5"
        ]
      },
      "change": {
        "9999": "bcrt1q0xcp0qqpprxznma4jc2trzckkjgejy4yslxez2xtawcjmwhk8wkqxtwkjg",
        "0-2": [
          "bcrt1qj4ykuuxkluamnwdegcdk4sm5k0xgh9dmxk3zy8hhwv4stsqz8wcsgksxax",
          "bcrt1qw660r57ppqa04lmj5xk5ulgd9e6fqm4lhnd3mykhl8azwjrjkv2sktcdy4",
          "bcrt1qj47jmne0pw9cawjv7gh959ze9nejysycmx9zj3hry95my40u5m7q3g5fxa"
        ]
      },
      "addressinfo": {
        "receive": {
          "address": "bcrt1qrx0dmfqm8w0s8uvdwzdxchfdy6vzwuqegz4daafy67u4hsjy2gasdn96f5",
          "desc": "wsh(multi(2,[a74008ce/48h/1h/0h/2h/0/2]02b986904d7523775cbddd37e7f6943fac0a7a13f06968bbf482651703dedbe6f6,[3eaaf796/48h/1h/0h/2h/0/2]02f0e1f5c4520db6dac48a86cc7ddd006476338a47fc1be61d4becb12585e0b56e,[77863c36/48h/1h/0h/2h/0/2]02ff54d7223f7cb2c4020c0cf55709ecea8afee4a239bf05b58b82759727fd0102))#5ax8kt8j"
        },
        "change": {
          "address": "bcrt1qj47jmne0pw9cawjv7gh959ze9nejysycmx9zj3hry95my40u5m7q3g5fxa",
          "desc": "wsh(multi(2,[a74008ce/48h/1h/0h/2h/1/2]035d7218e441560072662927c0f89177f79e830357469f35d736d5358e41fb0edd,[77863c36/48h/1h/0h/2h/1/2]03b8fdf59c0cfdb03d63428e8ee9e786dbdc47af79ec9dd2277e9cdc2b5876630b,[3eaaf796/48h/1h/0h/2h/1/2]03d3ec106693ce9da8626f77c994583e213cf9dba44a05ae5354916ae1bc1bf758))#qwlmevcy"
        }
      }
    }
  },
  "specter": {
    "scriptType": "p2sh",
    "external": "sh(sortedmulti(2,[a74008ce/45h]tpubD9VRnEHinAWbZg5x7ZuxrrpKNp9cgT2gbVowr2X7cNtitws4zdTFsmX4yrirU2QhuzoUF6nB2Q3U1Xdft7S6cG3syBQrXqpuYVarAjVqPNW/0/*,[3eaaf796/45h]tpubD8iqssPWwcnrH6fCjMQuWak5MxBDA6MrCVnnuv73Y4iDWSGXD6Lx13yyAg3vBmH1udXBxQczAhgEG1ztJsfSbsEXoVsjD294kZZU8S664VD/0/*,[77863c36/45h]tpubD995iHSSPpaG5NyQnKC3PYWgnrN6gdwDtuiTgfWMXN7rce2UWLDj4EuBG4EXjZrm2cmW5qSHE3QUhmdnVtVfLeeGBtuPQ3U51dgncVHcVeE/0/*))#lnfjnz04",
    "internal": "sh(sortedmulti(2,[a74008ce/45h]tpubD9VRnEHinAWbZg5x7ZuxrrpKNp9cgT2gbVowr2X7cNtitws4zdTFsmX4yrirU2QhuzoUF6nB2Q3U1Xdft7S6cG3syBQrXqpuYVarAjVqPNW/1/*,[3eaaf796/45h]tpubD8iqssPWwcnrH6fCjMQuWak5MxBDA6MrCVnnuv73Y4iDWSGXD6Lx13yyAg3vBmH1udXBxQczAhgEG1ztJsfSbsEXoVsjD294kZZU8S664VD/1/*,[77863c36/45h]tpubD995iHSSPpaG5NyQnKC3PYWgnrN6gdwDtuiTgfWMXN7rce2UWLDj4EuBG4EXjZrm2cmW5qSHE3QUhmdnVtVfLeeGBtuPQ3U51dgncVHcVeE/1/*))#c5fcmtxk",
    "node": {
      "receive": {
        "9999": "2N3JwDc5q2sjSLenL3YrhThK7g26pGYgmFp",
        "0-2": [
          "2MzDN71VRTaXSmYfgw5PQbxee7sN7cHmzSA",
          "2NEdZe6pP2ApoeZHZw1RAfNvNa7NEqMu6c5",
          "2NDVgm7zGc4aiKmSbGDWPxVtY8V1uxuaTpa"
        ]
      },
      "change": {
        "9999": "2NE1R8Kpy3vSdag1UUhvU5zop78twDDCjdG",
        "0-2": [
          "2MxVoJZDxc3Tj95WzuuXEzg3t9fMiTFnL17",
          "2N4vy9ugxaVQBdFE1Xm6n6E33fgc8H4FzNC",
          "2MvdH4LaCXJyPddzmGXhyDJ5kAaA64ZDCAr"
        ]
      },
      "addressinfo": {
        "receive": {
          "address": "2NDVgm7zGc4aiKmSbGDWPxVtY8V1uxuaTpa",
          "desc": "sh(multi(2,[77863c36/45h/0/2]0265c1b03107ea0603545b7274609afb61127bb98101015cc29762c07cc863d711,[3eaaf796/45h/0/2]03244c77ecd78d761d2c0a808f906498885b9e95aab43c57dcb4b71ddcbcbfa522,[a74008ce/45h/0/2]03799454daf01264e4d4de4cc68689e4617460b193155122d598a24261803cf389))#dxfnfqhq"
        },
        "change": {
          "address": "2MvdH4LaCXJyPddzmGXhyDJ5kAaA64ZDCAr",
          "desc": "sh(multi(2,[3eaaf796/45h/1/2]024e21b8c61a584890fb703a2bba02c02299f0119047434adc19cbdbb204ba8f3b,[77863c36/45h/1/2]026d6aa14e1a628bd184320acbc2aa1f20126dc970154ccf30d35e4e85216833d1,[a74008ce/45h/1/2]03453b5a1c1953ae0d419be07df4571ceebdd215a7a427611d17f944c4ff372276))#yv58t72q"
        }
      }
    }
  },
  "sparrow": {
    "scriptType": "p2wsh",
    "external": "wsh(multi(2,[a74008ce/48h/1h/0h/2h]tpubDFS8humXq8S9CmyJjmUsbDcYAUoEZXd73TbS9SwfSLAr3G9Tjf4nEHV9P1ShtccvWeEr2DPEys7Tq15t6f4eEWV6GH2PZSDn4biSAbNCbpm/0/*,[3eaaf796/48h/1h/0h/2h]tpubDF5jwZr5LeMN6Mckavhn6adjZXcbZdk5zJqaUTNHhAo9Ztjy9cK7m2x3wXP8bQ6iJZcV1461Dh7FHoGc7k6PUFbiQ5fapBaB9XtbcUVxkCf/0/*,[77863c36/48h/1h/0h/2h]tpubDEiQYerruvPTsjtgot7Jh4Fgz7yi8FVSis2VyZSjpEd3gf7o7SWPNZ3jbWPh9XEBsC28P87JiRx8ekJRZtXkW4bSfXnvVG8Lvim1D5ePLRc/0/*))#fvq26rsp",
    "internal": "wsh(multi(2,[a74008ce/48h/1h/0h/2h]tpubDFS8humXq8S9CmyJjmUsbDcYAUoEZXd73TbS9SwfSLAr3G9Tjf4nEHV9P1ShtccvWeEr2DPEys7Tq15t6f4eEWV6GH2PZSDn4biSAbNCbpm/1/*,[3eaaf796/48h/1h/0h/2h]tpubDF5jwZr5LeMN6Mckavhn6adjZXcbZdk5zJqaUTNHhAo9Ztjy9cK7m2x3wXP8bQ6iJZcV1461Dh7FHoGc7k6PUFbiQ5fapBaB9XtbcUVxkCf/1/*,[77863c36/48h/1h/0h/2h]tpubDEiQYerruvPTsjtgot7Jh4Fgz7yi8FVSis2VyZSjpEd3gf7o7SWPNZ3jbWPh9XEBsC28P87JiRx8ekJRZtXkW4bSfXnvVG8Lvim1D5ePLRc/1/*))#vetsy9qf",
    "node": {
      "receive": {
        "9999": "bcrt1q04x2l5pdkz40x87szfe5rfvwrxv66jzarnlhvxat26futpvjs7fqr0zd73",
        "0-2": [
          "bcrt1qzzcec5jur9zvlldpgxz9nly2zaz5lleu0kzw3y3pclnejvha8g7q6yqc29",
          "bcrt1qvx0xnycneufswexusdkfr8zd8cz0rngmw6a2zf59afju4rakd08qfhfz86",
          "bcrt1qrx0dmfqm8w0s8uvdwzdxchfdy6vzwuqegz4daafy67u4hsjy2gasdn96f5"
        ]
      },
      "change": {
        "9999": "bcrt1q948er4qmqvl67vusfncj0em77wkqsnhnayyw03ujg0wz7qk22jtqwdtmtw",
        "0-2": [
          "bcrt1qhpxrhns3c9ceaggz6cdzd2e6jn7awmryg3hgvhck4tcpd8sajuzqjyr040",
          "bcrt1qmhhr63uxcg972x6jpqpsp9lagf2u0m3tgxzqgh73nccpjrhttkyqz8xzd9",
          "bcrt1qx8gw03rc868hjenld7m44ce74mpmgyvw372drdxaykjjl2lt4gvql7q0w0"
        ]
      },
      "addressinfo": {
        "receive": {
          "address": "bcrt1qrx0dmfqm8w0s8uvdwzdxchfdy6vzwuqegz4daafy67u4hsjy2gasdn96f5",
          "desc": "wsh(multi(2,[a74008ce/48h/1h/0h/2h/0/2]02b986904d7523775cbddd37e7f6943fac0a7a13f06968bbf482651703dedbe6f6,[3eaaf796/48h/1h/0h/2h/0/2]02f0e1f5c4520db6dac48a86cc7ddd006476338a47fc1be61d4becb12585e0b56e,[77863c36/48h/1h/0h/2h/0/2]02ff54d7223f7cb2c4020c0cf55709ecea8afee4a239bf05b58b82759727fd0102))#5ax8kt8j"
        },
        "change": {
          "address": "bcrt1qx8gw03rc868hjenld7m44ce74mpmgyvw372drdxaykjjl2lt4gvql7q0w0",
          "desc": "wsh(multi(2,[a74008ce/48h/1h/0h/2h/1/2]035d7218e441560072662927c0f89177f79e830357469f35d736d5358e41fb0edd,[3eaaf796/48h/1h/0h/2h/1/2]03d3ec106693ce9da8626f77c994583e213cf9dba44a05ae5354916ae1bc1bf758,[77863c36/48h/1h/0h/2h/1/2]03b8fdf59c0cfdb03d63428e8ee9e786dbdc47af79ec9dd2277e9cdc2b5876630b))#ekyqp5wn"
        }
      }
    }
  },
  "vpub": {
    "scriptType": "p2wpkh",
    "external": "wpkh([a74008ce/84h/1h/0h]tpubDCD5ZxcTN1Ys3jJKUsHsGUcGnD5N7ykNh7f2unAJ8tMBwfFBS2pVCSxG2FmPGzAdJMby7mtDWgyjnW5PJE3yAYXHMAxr5cXovL7dW7p2SzV/0/*)#fezfgupt",
    "internal": "wpkh([a74008ce/84h/1h/0h]tpubDCD5ZxcTN1Ys3jJKUsHsGUcGnD5N7ykNh7f2unAJ8tMBwfFBS2pVCSxG2FmPGzAdJMby7mtDWgyjnW5PJE3yAYXHMAxr5cXovL7dW7p2SzV/1/*)#cd8g4f3n",
    "node": {
      "receive": {
        "9999": "bcrt1q5j5s5xddf85jv8e7mq33djfsqat26cwww97ewk",
        "0-2": [
          "bcrt1qkkkk3yeqer49rrx6e0ntd930h86fml4hyz7fk7",
          "bcrt1qe453h380973m6qxx3kyqcda8szey2vwg58sh5d",
          "bcrt1qtuqwqdmtgfyyphv0lgvm9l4fwqlxyu8x7dj4pm"
        ]
      },
      "change": {
        "9999": "bcrt1q8nc3pfk4v20wgr5yw62pns2fjt0y5gdstns9z5",
        "0-2": [
          "bcrt1qewfw7fg2l6q6za7rgqlheg9spupmrlh95p4lj9",
          "bcrt1qjsyu57wq3j0fz2j8yxj8nh7fx3hcq3kp6gsw2k",
          "bcrt1quenjq6a2ul5rng4hrrcut2580569xh3s5h50ej"
        ]
      },
      "addressinfo": {
        "receive": {
          "address": "bcrt1qtuqwqdmtgfyyphv0lgvm9l4fwqlxyu8x7dj4pm",
          "desc": "wpkh([a74008ce/84h/1h/0h/0/2]026a584532867b8708863c4f89d1b9d2a21be40ef867ffdb18f45274f7cc417d72)#3qadslvp",
          "hdkeypath": "m/84h/1h/0h/0/2"
        },
        "change": {
          "address": "bcrt1quenjq6a2ul5rng4hrrcut2580569xh3s5h50ej",
          "desc": "wpkh([a74008ce/84h/1h/0h/1/2]03933496dfbd6f2ae7884a19c44f1ac9f2ba9159a7f26e734b1af493e924531d4b)#p20pac5r",
          "hdkeypath": "m/84h/1h/0h/1/2"
        }
      }
    }
  },
  "upub": {
    "scriptType": "p2sh-p2wpkh",
    "external": "sh(wpkh([a74008ce/49h/1h/0h]tpubDC3G9RWH83LDoXwd52MzYmrDCdJaRqZg2xftZU5RM45TNNcWU9NgepQ4vz8hME3P9UuY36hhghf2kdQrEdQ5SYYW3CLRGmYGkcn8VtDEQ9E/0/*))#r3uu44pz",
    "internal": "sh(wpkh([a74008ce/49h/1h/0h]tpubDC3G9RWH83LDoXwd52MzYmrDCdJaRqZg2xftZU5RM45TNNcWU9NgepQ4vz8hME3P9UuY36hhghf2kdQrEdQ5SYYW3CLRGmYGkcn8VtDEQ9E/1/*))#ksj2d25a",
    "node": {
      "receive": {
        "9999": "2NB1dNZ2KYoq1KCTB4cZTYC4axzD4TecVXe",
        "0-2": [
          "2Mz1enHGZgGjuxMkme8sCd19a1pvD9Y13Nk",
          "2NFiEEKARGjyPxcwcjj8duaeTuuMgcx55NB",
          "2MxnHR2QjQ9vVRYR1woXbdiMxjEZpeiTjJs"
        ]
      },
      "change": {
        "9999": "2MscuwhcHBm2Z4BGsG8A2DFDQBHX8KZ66J1",
        "0-2": [
          "2MwpBnvtKvoVG6MMBQ2enJdETX5ywTbnWbf",
          "2N5pHSukfDjfLmWjA5nEwEkpiUNSBuAwYKm",
          "2N4ZSJj8z6EVrA4MEPvQ8PQ2Wpwe3ppThjR"
        ]
      },
      "addressinfo": {
        "receive": {
          "address": "2MxnHR2QjQ9vVRYR1woXbdiMxjEZpeiTjJs",
          "desc": "sh(wpkh([a74008ce/49h/1h/0h/0/2]02b47678479243564f59fd83097ca8678c6e71b486be9bd78394ce6ef9ab99609f))#pmvjckgm",
          "hdkeypath": "m/49h/1h/0h/0/2"
        },
        "change": {
          "address": "2N4ZSJj8z6EVrA4MEPvQ8PQ2Wpwe3ppThjR",
          "desc": "sh(wpkh([a74008ce/49h/1h/0h/1/2]021b438dbd8976b7db212b19cb06614f28801b2727fd1011bd28f5eb20750a022c))#47wwrvp0",
          "hdkeypath": "m/49h/1h/0h/1/2"
        }
      }
    }
  },
  "tpub44": {
    "scriptType": "p2pkh",
    "external": "pkh([a74008ce/44h/1h/0h]tpubDDo1FXykrj2sB9Utwai8QnSuVHkkxSXcwqwSuVGdN9MG7kQdehTcoqKhD4Hh92KDjpKgmbBBWHCJT2UBpBzrqxLc1Mf9sg6KYR3HoTAxiNy/0/*)#z8hku8vq",
    "internal": "pkh([a74008ce/44h/1h/0h]tpubDDo1FXykrj2sB9Utwai8QnSuVHkkxSXcwqwSuVGdN9MG7kQdehTcoqKhD4Hh92KDjpKgmbBBWHCJT2UBpBzrqxLc1Mf9sg6KYR3HoTAxiNy/1/*)#nnjhpjuc",
    "node": {
      "receive": {
        "9999": "mgczNWvNsFo6v2ZveRL1ZPTQwzhu1KKKow",
        "0-2": [
          "mkhVVC3JX8haHVFPXUSdAEAjn6cHz7ACns",
          "mp7GmewyfBMnGPj5FjaJH2JW4XmmhVDhsL",
          "mq3Vm83LSxYQAk1KATHuG8aMf3rp7MgYHW"
        ]
      },
      "change": {
        "9999": "mkabVqwz8nu4wC5A6VbY84tMikVsMi13Ug",
        "0-2": [
          "mg6L7gM1nfFHpKQ8eCqeYMWFpnjAJUVjWG",
          "mrKHwXDZaqRs5UeYHNi1T4jFPimAwMmZF9",
          "mpkPoh1bUd7uyMdgvKvFN2hf94U6zGCsvh"
        ]
      },
      "addressinfo": {
        "receive": {
          "address": "mq3Vm83LSxYQAk1KATHuG8aMf3rp7MgYHW",
          "desc": "pkh([a74008ce/44h/1h/0h/0/2]02f272817d4e503b6381ab94d19ebdc6e383d5e6e9594de4d574bf5b11c8c65881)#ge7ypec2",
          "hdkeypath": "m/44h/1h/0h/0/2"
        },
        "change": {
          "address": "mpkPoh1bUd7uyMdgvKvFN2hf94U6zGCsvh",
          "desc": "pkh([a74008ce/44h/1h/0h/1/2]0325066e4f99ef557145c71382550c02ff1b6a9cfa71c5e97b1094477ae3767f87)#5dr2ml9u",
          "hdkeypath": "m/44h/1h/0h/1/2"
        }
      }
    }
  },
  "tr86": {
    "scriptType": "p2tr",
    "external": "tr([a74008ce/86h/1h/0h]tpubDCxYP6nq6u9hELMtpUuPNyFreYuzwqhTMoiYZxsGL7yfR1FqEbekHDTWs9J9URQQRNy2rfa5Kutj5Eg1dK81aWxcrt62J6TpqrMHeKSQACF/0/*)#p3wzr7tr",
    "internal": "tr([a74008ce/86h/1h/0h]tpubDCxYP6nq6u9hELMtpUuPNyFreYuzwqhTMoiYZxsGL7yfR1FqEbekHDTWs9J9URQQRNy2rfa5Kutj5Eg1dK81aWxcrt62J6TpqrMHeKSQACF/1/*)#s9tr7tmm",
    "node": {
      "receive": {
        "9999": "bcrt1p3w4ap5mtfutz9atyf5vl2jcv7hrf24jjde0j7jwf2l29e4fx37ws9njh3d",
        "0-2": [
          "bcrt1pujldu20duf6aax2nlee6apc4h4yjx0tqksyq6ssgses7jc5z7kes2rmyl6",
          "bcrt1pa8xkjdf8ghyn8z0xwtn74fzk2q8wcg6pr55ska9fmd6ypvd9jv3qp9s7y8",
          "bcrt1p587krja85h0p0jck53tu02pd8v960w6k4ugtcq4j3ze4xaz2ge9spddkqt"
        ]
      },
      "change": {
        "9999": "bcrt1pjw0znxpy3c5qdpjggmh0fmx8c80racmu3a4559jerqtmsa0c58vsfycm6g",
        "0-2": [
          "bcrt1p92vrthm9fk99ah7yszfjjheqrwuzsl2qm24ux8jamhpchjp5etaq6v6rls",
          "bcrt1ptena8dkg476qk3jatutu9t4k46q55h28gwz675sntea4x4qdynnscfyjnf",
          "bcrt1p0kyqum38x8mvrcncffmeckklpnvnwncqrukmuq5uxxugm0z6eyvs6sd6un"
        ]
      },
      "addressinfo": {
        "receive": {
          "address": "bcrt1p587krja85h0p0jck53tu02pd8v960w6k4ugtcq4j3ze4xaz2ge9spddkqt",
          "desc": "tr([a74008ce/86h/1h/0h/0/2]f6f70b8103cac6c6a125e1b8d803391c4677301c03349571b318ef8d5a81bd87)#8gze4pwy",
          "hdkeypath": "m/86h/1h/0h/0/2"
        },
        "change": {
          "address": "bcrt1p0kyqum38x8mvrcncffmeckklpnvnwncqrukmuq5uxxugm0z6eyvs6sd6un",
          "desc": "tr([a74008ce/86h/1h/0h/1/2]05ca79047ad39b1349e4b65fd96d02f861d7ad7e1ec0de43f16a325178688378)#evprk2va",
          "hdkeypath": "m/86h/1h/0h/1/2"
        }
      }
    }
  }
};
