"""A stand-in for Xcode's command-line tools on a machine without a Mac.

`xcodebuild` and `xcrun xcresulttool`, as far as pipeline's Xcode workflows use them, played on a
Swift package's sources (Examples/XcodeApp): the outputs have the shapes of the recorded ones in
Tests/XcodeResultsTests/Fixtures (an Xcode 16 `get test-results tests` JSON, a flat
`-enumerate-tests` JSON, a format-2 `.xctestrun`, XCTest's console lines), and snapshot tests
assert, record and write artifacts as swift-snapshot-testing does, by its switches
(`SNAPSHOT_TESTING_RECORD`, `SNAPSHOT_ARTIFACTS`, passed by xcodebuild from `TEST_RUNNER_…`).

- `build-for-testing -scheme S -destination D -derivedDataPath DD` "compiles": it reads each test
  target's classes and methods from `Tests/<Target>/*.swift` and the colour every view is drawn
  on from `primary = RGB(r, g, b)` in `Sources/`, and keeps them in the products
  (`DD/Build/Products/Debug-iphonesimulator/<Target>.xctest/stub.json`) beside an `.xctestrun`.
  A later change to the sources changes nothing the products run, as with a real build. Its
  packages are "cloned" into `DD/SourcePackages/checkouts/` unless they are there already.
- `test-without-building -xctestrun F` runs the tests the file's `OnlyTestIdentifiers`, and the
  `-only-testing:` arguments, select; `-enumerate-tests … -test-enumeration-output-path P` lists
  them; `-resultBundlePath R` keeps the run for `xcresulttool`. Exit 65 when a test failed.
- A test method calling `XCTFail("…")` fails with that message, beside any snapshot it asserts.
- Every invocation is appended to `$XCODE_STUB_LOG` (one JSON line: the arguments and the
  snapshot switches), for tests that check what pipeline asked of Xcode.
"""
import json
import os
import plistlib
import re
import struct
import sys
import zlib

VERSION = "Xcode 16.2\nBuild version 16C5032a"


def log(tool, args):
    path = os.environ.get("XCODE_STUB_LOG")
    if not path:
        return
    switches = {k: v for k, v in os.environ.items() if k.startswith("TEST_RUNNER_")}
    with open(path, "a") as handle:
        handle.write(json.dumps({"tool": tool, "arguments": args, "environment": switches, "cwd": os.getcwd()}) + "\n")


def runner_variable(name):
    """What the test process sees of `name`: xcodebuild passes `TEST_RUNNER_<name>` without its prefix."""
    return os.environ.get("TEST_RUNNER_" + name)


def fail(message, status=64):
    sys.stderr.write(f"xcodebuild: error: {message}\n")
    sys.exit(status)


def png(width, height, rgb):
    raw = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def options(args):
    """xcodebuild's `-name value` options, its bare actions and flags, and its `-only-testing:` arguments."""
    values, actions, only = {}, [], []
    takes_value = {
        "-scheme", "-destination", "-derivedDataPath", "-xctestrun", "-resultBundlePath", "-project",
        "-workspace", "-test-enumeration-style", "-test-enumeration-format", "-test-enumeration-output-path",
        "-configuration", "-testPlan",
    }
    index = 0
    while index < len(args):
        arg = args[index]
        if arg.startswith("-only-testing:"):
            only.append(arg[len("-only-testing:"):])
        elif arg in takes_value:
            if index + 1 >= len(args):
                fail(f"option '{arg}' requires a value")
            values[arg] = args[index + 1]
            index += 1
        elif arg.startswith("-"):
            values[arg] = True
        elif "=" in arg:
            key, value = arg.split("=", 1)
            values[key] = value
        else:
            actions.append(arg)
        index += 1
    return values, actions, only


def destination_fields(text):
    fields = dict(part.split("=", 1) for part in (text or "").split(",") if "=" in part)
    return fields.get("name", "iPhone 16"), fields.get("OS", "18.2"), fields.get("platform", "iOS Simulator")


# MARK: build-for-testing


def sources_colour(root):
    for folder, _, files in os.walk(os.path.join(root, "Sources")):
        for name in sorted(files):
            if name.endswith(".swift"):
                with open(os.path.join(folder, name), encoding="utf-8") as handle:
                    match = re.search(r"primary = RGB\((\d+), (\d+), (\d+)\)", handle.read())
                if match:
                    return [int(part) for part in match.groups()]
    return [0, 0, 0]


def test_targets(root):
    """Each test target's classes: their file, and their methods with whether each asserts a snapshot."""
    targets = {}
    tests = os.path.join(root, "Tests")
    for target in sorted(os.listdir(tests)) if os.path.isdir(tests) else []:
        folder = os.path.join(tests, target)
        if not os.path.isdir(folder):
            continue
        classes = []
        for name in sorted(os.listdir(folder)):
            if not name.endswith(".swift"):
                continue
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8") as handle:
                source = handle.read()
            for match in re.finditer(r"class (\w+)\s*:\s*XCTestCase\s*\{", source):
                body = source[match.end():]
                following = re.search(r"\n(?:\s*)(?:final )?class \w+", body)
                body = body[: following.start()] if following else body
                methods = []
                for method in re.finditer(r"func (test\w*)\(\)[^{]*\{", body):
                    rest = body[method.end():]
                    end = re.search(r"\n\s*func |\Z", rest)
                    failure = re.search(r'XCTFail\("([^"]*)"\)', rest[: end.start()])
                    methods.append({
                        "name": method.group(1),
                        "snapshot": "assertSnapshot(" in rest[: end.start()],
                        "fails": failure.group(1) if failure else None,
                        "line": source[: match.end()].count("\n") + body[: method.end()].count("\n") + 2,
                    })
                classes.append({"name": match.group(1), "file": path, "methods": methods})
        if classes:
            targets[target] = classes
    return targets


def build_for_testing(values):
    scheme = values.get("-scheme")
    if not scheme:
        fail("the build-for-testing action requires -scheme (or -xctestrun)")
    if "-destination" not in values:
        fail("build-for-testing needs a -destination")
    derived = values.get("-derivedDataPath", "DerivedData")
    products = os.path.join(derived, "Build", "Products")
    root = os.getcwd()
    # Package resolution: clones into DD/SourcePackages, or finds them there (a CI's cache).
    checkouts = os.path.join(derived, "SourcePackages", "checkouts", "swift-snapshot-testing")
    if os.path.isdir(checkouts):
        print("Resolve Package Graph: packages found in SourcePackages")
    else:
        os.makedirs(checkouts, exist_ok=True)
        with open(os.path.join(checkouts, "Package.swift"), "w") as handle:
            handle.write("// swift-tools-version:5.9\n")
        print("Resolve Package Graph: fetching swift-snapshot-testing")
    targets = test_targets(root)
    if not targets:
        fail(f"scheme {scheme} has no test targets in {root}/Tests", 65)
    colour = sources_colour(root)
    configurations = []
    for target, classes in targets.items():
        bundle = os.path.join(products, "Debug-iphonesimulator", f"{target}.xctest")
        os.makedirs(bundle, exist_ok=True)
        with open(os.path.join(bundle, "stub.json"), "w") as handle:
            json.dump({"target": target, "colour": colour, "classes": classes}, handle)
        # The bundle's executable, which xcodebuild launches: it must keep its executable bit.
        executable = os.path.join(bundle, target)
        with open(executable, "w") as handle:
            handle.write("#!/bin/sh\n")
        os.chmod(executable, 0o755)
        configurations.append({
            "BlueprintName": target,
            "ProductModuleName": target,
            "TestBundlePath": f"__TESTROOT__/Debug-iphonesimulator/{target}.xctest",
            "TestHostPath": "__PLATFORMS__/iPhoneSimulator.platform/Developer/Library/Xcode/Agents/xctest",
            "IsUITestBundle": False,
        })
    run = {
        "TestConfigurations": [{"Name": "Test Scheme Action", "TestTargets": configurations}],
        "TestPlan": {"IsDefault": True, "Name": scheme},
        "__xctestrun_metadata__": {"FormatVersion": 2},
    }
    name = f"{scheme}_{scheme}_iphonesimulator18.2-arm64.xctestrun"
    with open(os.path.join(products, name), "wb") as handle:
        plistlib.dump(run, handle)
    print(f"Build settings from command line:\n\n** TEST BUILD SUCCEEDED **")


# MARK: test-without-building


def selected_tests(values, only):
    path = values.get("-xctestrun")
    if not path:
        fail("test-without-building needs -xctestrun (or -scheme, which this stub does not build)")
    if not os.path.isfile(path):
        fail(f"'{path}' does not exist")
    with open(path, "rb") as handle:
        run = plistlib.load(handle)
    if run.get("__xctestrun_metadata__", {}).get("FormatVersion") != 2:
        fail(f"{path}: not a format-2 xctestrun", 65)
    root = os.path.dirname(os.path.abspath(path))
    tests = []
    for configuration in run["TestConfigurations"]:
        for target in configuration["TestTargets"]:
            bundle = target["TestBundlePath"].replace("__TESTROOT__", root)
            executable = os.path.join(bundle, target["BlueprintName"])
            if not os.access(executable, os.X_OK):
                fail(f"Failed to launch {executable}: Permission denied (its executable bit was lost)", 65)
            with open(os.path.join(bundle, "stub.json")) as handle:
                built = json.load(handle)
            wanted = target.get("OnlyTestIdentifiers")
            for cls in built["classes"]:
                for method in cls["methods"]:
                    identifier = f"{cls['name']}/{method['name']}"
                    if wanted is not None and not any(
                        identifier == w.rstrip("()") or cls["name"] == w for w in [x.rstrip("()") for x in wanted]
                    ):
                        continue
                    full = f"{built['target']}/{identifier}"
                    if only and not any(
                        full == o.rstrip("()") or f"{built['target']}/{cls['name']}" == o or built["target"] == o
                        for o in only
                    ):
                        continue
                    tests.append((built, cls, method))
    return tests


def assert_snapshot(built, cls, method):
    """swift-snapshot-testing's assertSnapshot(of:as: .image) for the view on the built colour:
    the failure message, or None when it matched."""
    folder = os.path.join(os.path.dirname(cls["file"]), "__Snapshots__", os.path.splitext(os.path.basename(cls["file"]))[0])
    reference = os.path.join(folder, f"{method['name']}.1.png")
    image = png(12, 4, built["colour"])
    record = runner_variable("SNAPSHOT_TESTING_RECORD") or "missing"
    if record == "all":
        os.makedirs(folder, exist_ok=True)
        with open(reference, "wb") as handle:
            handle.write(image)
        return (f"Record mode is on. Automatically recorded snapshot: …\n\nopen \"file://{reference}\"\n\n"
                f"Turn record mode off and re-run \"{method['name']}\" to assert against the newly-recorded snapshot")
    if not os.path.exists(reference):
        if record == "never":
            return f"No reference was found on disk. New snapshot was not recorded because recording is disabled"
        os.makedirs(folder, exist_ok=True)
        with open(reference, "wb") as handle:
            handle.write(image)
        return (f"No reference was found on disk. Automatically recorded snapshot: …\n\nopen \"file://{reference}\"\n\n"
                f"Re-run \"{method['name']}\" to assert against the newly-recorded snapshot.")
    with open(reference, "rb") as handle:
        if handle.read() == image:
            return None
    if record == "failed":
        with open(reference, "wb") as handle:
            handle.write(image)
    artifacts = runner_variable("SNAPSHOT_ARTIFACTS") or os.environ.get("TMPDIR", "/tmp")
    target = os.path.join(artifacts, os.path.splitext(os.path.basename(cls["file"]))[0])
    os.makedirs(target, exist_ok=True)
    artifact = os.path.join(target, f"{method['name']}.1.png")
    with open(artifact, "wb") as handle:
        handle.write(image)
    return (f"Snapshot does not match reference.\n\n@\u2212\n\"file://{reference}\"\n@+\n\"file://{artifact}\"\n\n"
            f"Newly-taken snapshot does not match reference.")


def test_without_building(values, only):
    tests = selected_tests(values, only)
    device, os_version, platform = destination_fields(values.get("-destination"))
    if "-enumerate-tests" in values:
        output = values.get("-test-enumeration-output-path")
        enabled = [{"identifier": f"{b['target']}/{c['name']}/{m['name']}()"} for b, c, m in tests]
        document = {"errors": [], "values": [{"disabledTests": [], "enabledTests": enabled, "testPlan": "Default"}]}
        text = json.dumps(document, indent=2)
        if output:
            with open(output, "w") as handle:
                handle.write(text)
        else:
            print(text)
        return 0
    failed = False
    suites = {}
    for built, cls, method in tests:
        name = f"-[{built['target']}.{cls['name']} {method['name']}]"
        print(f"Test Case '{name}' started.")
        message = assert_snapshot(built, cls, method) if method["snapshot"] else None
        if method.get("fails") is not None:
            message = f"failed - {method['fails']}" if message is None else message + f"\nfailed - {method['fails']}"
        status = "Passed" if message is None else "Failed"
        seconds = 0.25 if method["snapshot"] else 0.01
        if message is not None:
            failed = True
            print(f"{cls['file']}:{method['line']}: error: {name} : {message if message.startswith('failed - ') else 'failed - ' + message}")
        print(f"Test Case '{name}' {status.lower()} ({seconds:.3f} seconds).")
        node = {
            "duration": f"{seconds}s", "durationInSeconds": seconds, "name": f"{method['name']}()",
            "nodeIdentifier": f"{cls['name']}/{method['name']}()",
            "nodeIdentifierURL": f"test://com.apple.xcode/App/{built['target']}/{cls['name']}/{method['name']}",
            "nodeType": "Test Case", "result": status,
        }
        if message is not None:
            file = os.path.basename(cls["file"])
            lines = message.split("\nfailed - ")
            node["children"] = [
                {"name": f"{file}:{method['line']}: {line if line.startswith('failed - ') else 'failed - ' + line}", "nodeType": "Failure Message", "result": "Failed"}
                for line in lines
            ]
        suites.setdefault(built["target"], {}).setdefault(cls["name"], []).append(node)
    bundle = values.get("-resultBundlePath")
    if bundle:
        def result(nodes):
            return "Failed" if any(n["result"] == "Failed" for n in nodes) else "Passed"
        targets = []
        for target, classes in suites.items():
            suite_nodes = [{"children": nodes, "name": cls, "nodeIdentifier": cls, "nodeType": "Test Suite", "result": result(nodes)} for cls, nodes in classes.items()]
            targets.append({"children": suite_nodes, "name": target, "nodeType": "Unit test bundle", "result": result(suite_nodes)})
        document = {
            "devices": [{"architecture": "arm64", "deviceId": "1D56D717-7C7E-4CC2-8B03-608FF61C4407", "deviceName": device,
                         "modelName": device, "osVersion": os_version, "platform": platform}],
            "testNodes": [{"children": targets, "name": "Default", "nodeType": "Test Plan", "result": result(targets) if targets else "Passed"}],
            "testPlanConfigurations": [{"configurationId": "1", "configurationName": "Test Scheme Action"}],
        }
        if os.path.exists(bundle):
            fail(f"Existing file at -resultBundlePath \"{bundle}\"", 65)
        os.makedirs(bundle)
        with open(os.path.join(bundle, "stub-tests.json"), "w") as handle:
            json.dump(document, handle, indent=2)
    print("** TEST FAILED **" if failed else "** TEST EXECUTE SUCCEEDED **")
    return 65 if failed else 0


def xcodebuild(args):
    log("xcodebuild", args)
    if args == ["-version"]:
        print(VERSION)
        return 0
    values, actions, only = options(args)
    if actions == ["build-for-testing"]:
        build_for_testing(values)
        return 0
    if actions == ["test-without-building"]:
        return test_without_building(values, only)
    fail(f"this stub plays build-for-testing and test-without-building, not {' '.join(actions) or 'no action'}")


def xcrun(args):
    log("xcrun", args)
    if args[:4] == ["xcresulttool", "get", "test-results", "tests"] and "--path" in args:
        bundle = args[args.index("--path") + 1]
        path = os.path.join(bundle, "stub-tests.json")
        if not os.path.isfile(path):
            sys.stderr.write(f"Error: {bundle} is not a result bundle\n")
            return 1
        with open(path) as handle:
            sys.stdout.write(handle.read())
        return 0
    if args[:1] == ["xcodebuild"]:
        return xcodebuild(args[1:])
    sys.stderr.write(f"xcrun: error: this stub plays xcresulttool get test-results tests, not {' '.join(args)}\n")
    return 72
