<#
.SYNOPSIS
  Installs, or upgrades to, this unpacked release of the branch agent as a Windows service.
.DESCRIPTION
  In an elevated PowerShell, inside the unpacked release:
    powershell -ExecutionPolicy Bypass -File .\service-install\install.ps1 [options]
  Runs `branch-agent service install` with the release's own Node.js (runtime\node.exe), which
  does everything: config template, side-by-side release, migrations, the WinSW service, health
  wait and rollback. Options are passed on (--prefix, --config, --health-timeout, --keep,
  --node, --winsw); `--help` lists them and the exit codes.
#>
$ErrorActionPreference = 'Stop'
$release = Split-Path -Parent $PSScriptRoot
$identity = [Security.Principal.WindowsPrincipal][Security.Principal.WindowsIdentity]::GetCurrent()
if (-not $identity.IsInRole([Security.Principal.WindowsBuiltInRole]::Administrator)) {
  Write-Host 'Run this from an elevated PowerShell (Run as administrator).'
  exit 1
}
$node = Join-Path $release 'runtime\node.exe'
$at = [array]::IndexOf([string[]]$args, '--node')
if ($at -ge 0 -and $at + 1 -lt $args.Count) { $node = $args[$at + 1] }
if (-not (Test-Path -LiteralPath $node)) {
  Write-Host "No Node.js at '$node': use a release made by make-release.sh --platform win32, or pass --node <node.exe>."
  exit 1
}
& $node (Join-Path $release 'bin\branch-agent.js') service install @args
exit $LASTEXITCODE
