<#
.SYNOPSIS
  Installs, or upgrades, the Soft Restaurant branch agent as a Windows service, from the
  unpacked release this script belongs to. The Windows twin of install.sh: same steps, in the
  same order.

.DESCRIPTION
  Run it from an elevated PowerShell, inside the unpacked release (branch-agent-<version>\):

    powershell -ExecutionPolicy Bypass -File .\service-install\install.ps1

  1. Checks administrator rights, Node.js (20.12 or later), that the release is complete and
     that a WinSW executable is at hand (see -WinSW).
  2. Configuration: an existing file is never overwritten. When none exists, writes a template
     (the "agent" section of config.example.json) readable only by Administrators and SYSTEM,
     says what to fill in and exits with 2: edit it and run install.ps1 again.
  3. Copies the release to <Prefix>\releases\<version>, next to the previous ones.
  4. Applies the agent's own database migrations (branch-agent migrate -c <config>) while the
     running version keeps serving; if they fail, nothing is switched.
  5. Installs or updates the service: WinSW as <Prefix>\service\branch-agent.exe with
     branch-agent.xml beside it (from the template in this folder).
  6. Stops the service, points the <Prefix>\current junction at the new release, starts it.
  7. Waits until http://127.0.0.1:<agent.health.port>/healthz (default 8081) answers with the
     new version and keeps answering for a few seconds. If it does not within the timeout,
     rolls back: current -> the previous release, restart, and exits non-zero.
  8. Keeps the last -Keep releases (plus current and previous) and deletes older ones.

  Exit codes: 0 installed and healthy; 1 stopped before switching (the running version is
  untouched); 2 configuration template written, edit it and run again; 3 the new release did
  not become healthy and the previous one was restored; 4 not healthy and nothing to roll back
  to (or the rollback failed too).

.PARAMETER Prefix
  Install root: releases\, current, service\. Default: %ProgramFiles%\branch-agent.

.PARAMETER Config
  Configuration file. Default: %ProgramData%\branch-agent\config.json (does not depend on the
  profile of the account the service runs as).

.PARAMETER LogDir
  Where WinSW writes the agent's output. Default: %ProgramData%\branch-agent\logs.

.PARAMETER HealthTimeout
  Seconds to wait for the agent to become healthy (default 60).

.PARAMETER Settle
  Seconds it must stay healthy before the upgrade counts (default 5).

.PARAMETER Keep
  Releases to keep (default 3).

.PARAMETER WinSW
  The WinSW executable to use. Without it, the first found of: WinSW-x64.exe, WinSW-net461.exe,
  WinSW.NET4.exe, WinSW.exe in this folder; the one already installed in <Prefix>\service; the
  copy bundled with node-windows (node_modules\node-windows\bin\winsw\winsw.exe) when present.
  WinSW is not downloaded: get WinSW-x64.exe from https://github.com/winsw/winsw/releases
  (v2.12.0) and place it in this folder before running.

.PARAMETER Node
  node.exe to use (default: node on PATH).

.PARAMETER ServiceName
  Service id (default branch-agent).

.PARAMETER Help
  Shows this text (same as Get-Help .\service-install\install.ps1 -Full).
#>
[CmdletBinding()]
param(
  [string]$Prefix = (Join-Path $env:ProgramFiles 'branch-agent'),
  [string]$Config = (Join-Path $env:ProgramData 'branch-agent\config.json'),
  [string]$LogDir = (Join-Path $env:ProgramData 'branch-agent\logs'),
  [ValidateRange(1, 3600)][int]$HealthTimeout = 60,
  [ValidateRange(0, 600)][int]$Settle = 5,
  [ValidateRange(1, 100)][int]$Keep = 3,
  [string]$WinSW = '',
  [string]$Node = '',
  [ValidatePattern('^[A-Za-z0-9_-]+$')][string]$ServiceName = 'branch-agent',
  [switch]$Help
)

Set-StrictMode -Version Latest
$ErrorActionPreference = 'Stop'
$ProgressPreference = 'SilentlyContinue'

if ($Help) {
  Get-Help $PSCommandPath -Full
  exit 0
}

$ScriptDir = $PSScriptRoot
$ReleaseDir = (Resolve-Path (Join-Path $ScriptDir '..')).Path

function Log([string]$Message) { Write-Host "==> $Message" }
function Note([string]$Message) { Write-Host "    $Message" }
function Warn([string]$Message) { Write-Warning $Message }
function Fail([int]$Code, [string]$Message) {
  Write-Host ''
  Write-Host "ERROR: $Message" -ForegroundColor Red
  exit $Code
}

# --- 1. administrator, Node.js, the release, WinSW --------------------------------------------

$principal = New-Object Security.Principal.WindowsPrincipal([Security.Principal.WindowsIdentity]::GetCurrent())
if (-not $principal.IsInRole([Security.Principal.WindowsBuiltInRole]::Administrator)) {
  Fail 1 'Run this script from an elevated PowerShell (Run as administrator): it installs a Windows service.'
}

$Prefix = [IO.Path]::GetFullPath($Prefix.TrimEnd('\'))
$Config = [IO.Path]::GetFullPath($Config)
$LogDir = [IO.Path]::GetFullPath($LogDir)
$ConfigDir = Split-Path -Parent $Config

if (-not $Node) {
  $cmd = Get-Command node.exe -ErrorAction SilentlyContinue
  if (-not $cmd) { Fail 1 'Node.js not found: install Node.js 20 LTS or later (https://nodejs.org, "Add to PATH"), or pass -Node C:\path\to\node.exe.' }
  $Node = $cmd.Source
}
if (-not (Test-Path -LiteralPath $Node -PathType Leaf)) { Fail 1 "$Node does not exist." }
$Node = (Resolve-Path -LiteralPath $Node).Path
# JavaScript in double quotes with single quotes inside: Windows PowerShell mangles double quotes
# inside the arguments of native commands.
& $Node -e "const [a, b] = process.versions.node.split('.').map(Number); process.exit(a > 20 || (a === 20 && b >= 12) ? 0 : 1)"
if ($LASTEXITCODE -ne 0) { Fail 1 "$Node is Node.js $(& $Node --version); the agent needs 20.12 or later." }

foreach ($f in 'package.json', 'dist\cli.js', 'bin\branch-agent.js', 'sql', 'node_modules') {
  if (-not (Test-Path -LiteralPath (Join-Path $ReleaseDir $f))) {
    Fail 1 "$ReleaseDir is not a complete release ($f missing). Unpack a release made by scripts/make-release.sh (--platform win32) and run the install.ps1 inside it."
  }
}
$Version = (Get-Content -LiteralPath (Join-Path $ReleaseDir 'package.json') -Raw | ConvertFrom-Json).version
if ($Version -notmatch '^[0-9A-Za-z][0-9A-Za-z.+_-]*$') { Fail 1 "unusable version '$Version' in package.json" }

$ServiceDir = Join-Path $Prefix 'service'
$ServiceExe = Join-Path $ServiceDir "$ServiceName.exe"
if (-not $WinSW) {
  $candidates = @(
    (Join-Path $ScriptDir 'WinSW-x64.exe'),
    (Join-Path $ScriptDir 'WinSW-net461.exe'),
    (Join-Path $ScriptDir 'WinSW.NET4.exe'),
    (Join-Path $ScriptDir 'WinSW.exe'),
    $ServiceExe,
    (Join-Path $ReleaseDir 'node_modules\node-windows\bin\winsw\winsw.exe')
  )
  $WinSW = $candidates | Where-Object { Test-Path -LiteralPath $_ -PathType Leaf } | Select-Object -First 1
  if (-not $WinSW) {
    Fail 1 ("No WinSW executable found. Download WinSW-x64.exe (https://github.com/winsw/winsw/releases, v2.12.0), " +
      "put it in $ScriptDir and run install.ps1 again (or pass -WinSW C:\path\to\WinSW-x64.exe).")
  }
}
$WinSW = (Resolve-Path -LiteralPath $WinSW).Path

Log "Installing branch-agent $Version from $ReleaseDir"
Note "prefix $Prefix, config $Config, logs $LogDir, service $ServiceName (WinSW: $WinSW)"

New-Item -ItemType Directory -Force -Path $Prefix | Out-Null
# One installer at a time: an exclusive handle on a lock file, released when the script ends.
try {
  $installLock = [IO.File]::Open((Join-Path $Prefix '.install.lock'), 'OpenOrCreate', 'ReadWrite', 'None')
} catch {
  Fail 1 "another install.ps1 is running on $Prefix."
}

# --- 2. configuration -------------------------------------------------------------------------

function Protect-Directory([string]$Path) {
  # Administrators and SYSTEM only (the service runs as LocalSystem), by SID: the group names
  # are translated on a Spanish Windows.
  & icacls.exe $Path /inheritance:r /grant:r '*S-1-5-32-544:(OI)(CI)F' '*S-1-5-18:(OI)(CI)F' | Out-Null
  if ($LASTEXITCODE -ne 0) { Warn "could not restrict the permissions of $Path (icacls exit $LASTEXITCODE)." }
}

if (-not (Test-Path -LiteralPath $Config)) {
  if (-not (Test-Path -LiteralPath $ConfigDir)) {
    New-Item -ItemType Directory -Force -Path $ConfigDir | Out-Null
    Protect-Directory $ConfigDir
  }
  $tmp = "$Config.tmp"
  & $Node -e "const fs = require('node:fs'); const example = JSON.parse(fs.readFileSync(process.argv[1], 'utf8')); fs.writeFileSync(process.argv[2], JSON.stringify({ agent: example.agent }, null, 2) + '\n');" (Join-Path $ReleaseDir 'config.example.json') $tmp
  if ($LASTEXITCODE -ne 0) { Fail 1 "could not write $Config." }
  Move-Item -LiteralPath $tmp -Destination $Config
  Log "No configuration yet: wrote a template to $Config"
  Note 'Fill in agent.licenseKey, agent.gatewayUrl, agent.token (from `branch-agent keys add-branch`)'
  Note 'and agent.database (the SQL Server of Soft Restaurant: server, instanceName, user, password).'
  Note 'Check it with:'
  Note "  & '$Node' '$ReleaseDir\bin\branch-agent.js' doctor -c '$Config'"
  Note 'then run this install.ps1 again.'
  exit 2
}
Log "Configuration $Config kept as it is"

# The loopback address and port of the agent's health endpoints, from the config.
$healthHost = '127.0.0.1'
$healthPort = 8081
try {
  $parsed = Get-Content -LiteralPath $Config -Raw | ConvertFrom-Json
  $agentSection = $parsed.PSObject.Properties['agent']
  if ($agentSection -and $agentSection.Value.PSObject.Properties['health']) {
    $h = $agentSection.Value.health
    if ($h.PSObject.Properties['host'] -and $h.host) { $healthHost = [string]$h.host }
    if ($h.PSObject.Properties['port'] -and $null -ne $h.port) { $healthPort = [int]$h.port }
  }
} catch {
  # Invalid JSON: the migrations below report it precisely.
}
if ($healthHost -eq '0.0.0.0') { $healthHost = '127.0.0.1' }
if ($healthHost -eq '::') { $healthHost = '::1' }
if ($healthHost.Contains(':')) { $healthHost = "[$healthHost]" }
if ($healthPort -eq 0) { Fail 1 "agent.health.port is 0 (a random port) in ${Config}: the installer cannot check the agent's health. Set a fixed port (default 8081)." }
$HealthUrl = "http://${healthHost}:$healthPort/healthz"

# --- 3. the release, side by side -------------------------------------------------------------

$Releases = Join-Path $Prefix 'releases'
$Target = Join-Path $Releases $Version
$Current = Join-Path $Prefix 'current'

function Get-CurrentRelease {
  $item = Get-Item -LiteralPath $Current -Force -ErrorAction SilentlyContinue
  if (-not $item -or -not $item.PSObject.Properties['Target'] -or -not $item.Target) { return '' }
  # Windows PowerShell returns the target as an array; PowerShell 7 as a string.
  return Split-Path -Leaf ([string](@($item.Target)[0]))
}

# Deletes a directory tree, long node_modules paths included (robocopy mirrors an empty folder
# into it first). Never used on a junction.
function Remove-Tree([string]$Path) {
  if (-not (Test-Path -LiteralPath $Path)) { return }
  $empty = Join-Path ([IO.Path]::GetTempPath()) ("branch-agent-empty-" + [guid]::NewGuid())
  New-Item -ItemType Directory -Path $empty | Out-Null
  & robocopy.exe $empty $Path /MIR /NFL /NDL /NJH /NJS /NP /R:1 /W:1 | Out-Null
  Remove-Item -LiteralPath $empty -Force
  Remove-Item -LiteralPath $Path -Recurse -Force
}

$Previous = Get-CurrentRelease
New-Item -ItemType Directory -Force -Path $Releases, $LogDir | Out-Null

$sameDir = (Test-Path -LiteralPath $Target) -and ((Resolve-Path -LiteralPath $Target).Path -eq $ReleaseDir)
if ($sameDir) {
  Log "Running from the installed release ${Target}: files kept"
} elseif ($Previous -eq $Version -and (Test-Path -LiteralPath $Target)) {
  Log "Version $Version is the current one: its files are kept (the running agent uses them)"
} else {
  Log "Copying the release to $Target"
  $staging = Join-Path $Releases ".staging-$Version-$PID"
  Remove-Tree $staging
  & robocopy.exe $ReleaseDir $staging /E /NFL /NDL /NJH /NJS /NP /R:1 /W:1 | Out-Null
  if ($LASTEXITCODE -ge 8) { Remove-Tree $staging; Fail 1 "copying the release to $staging failed (robocopy exit $LASTEXITCODE)." }
  Remove-Tree $Target
  Rename-Item -LiteralPath $staging -NewName $Version
}

# --- 4. migrations ----------------------------------------------------------------------------

Log "Applying the agent's database migrations"
& $Node (Join-Path $Target 'bin\branch-agent.js') migrate -c $Config
if ($LASTEXITCODE -ne 0) {
  $running = if ($Previous) { "; $Previous keeps running" } else { '' }
  Fail 1 ("the migrations of $Version failed (see above): nothing was switched$running. Fix the cause " +
    "(& '$Node' '$Target\bin\branch-agent.js' doctor -c '$Config' checks everything) and run install.ps1 again.")
}

# --- 5. the service ---------------------------------------------------------------------------

function Get-AgentService { Get-Service -Name $ServiceName -ErrorAction SilentlyContinue }

function Stop-AgentService {
  $svc = Get-AgentService
  if (-not $svc -or $svc.Status -eq 'Stopped') { return }
  Note "stopping the $ServiceName service"
  try {
    if ($svc.Status -ne 'StopPending') { $svc.Stop() }
    $svc.WaitForStatus('Stopped', [TimeSpan]::FromSeconds(60))
  } catch {
    Fail 1 "the $ServiceName service did not stop within 60 s ($($_.Exception.Message))."
  }
}

# A service that fails to start is not fatal here: the health wait that follows sees it and
# rolls back.
function Start-AgentService {
  Note "starting the $ServiceName service"
  try {
    Start-Service -Name $ServiceName
  } catch {
    Warn "starting $ServiceName failed: $($_.Exception.Message)"
  }
}

function ConvertTo-XmlText([string]$Text) { [Security.SecurityElement]::Escape($Text) }

function Install-AgentService {
  New-Item -ItemType Directory -Force -Path $ServiceDir | Out-Null
  $xmlPath = Join-Path $ServiceDir "$ServiceName.xml"
  $xml = Get-Content -LiteralPath (Join-Path $ScriptDir 'branch-agent.xml') -Raw
  $values = [ordered]@{ '@ID@' = $ServiceName; '@NODE@' = $Node; '@PREFIX@' = $Prefix; '@CONFIG@' = $Config; '@LOGDIR@' = $LogDir }
  foreach ($key in $values.Keys) { $xml = $xml.Replace($key, (ConvertTo-XmlText $values[$key])) }
  $xmlChanged = -not (Test-Path -LiteralPath $xmlPath) -or ((Get-Content -LiteralPath $xmlPath -Raw) -ne $xml)
  $exeChanged = ($WinSW -ne $ServiceExe) -and (-not (Test-Path -LiteralPath $ServiceExe) -or
    (Get-FileHash -LiteralPath $WinSW).Hash -ne (Get-FileHash -LiteralPath $ServiceExe).Hash)
  $exists = [bool](Get-AgentService)
  if ($exists -and -not $xmlChanged -and -not $exeChanged) { return }

  # The running wrapper locks its executable, and service settings are read at install time.
  if ($exists) {
    Stop-AgentService
    Log "Updating the $ServiceName service definition"
    & $ServiceExe uninstall | Out-Host
    for ($i = 0; $i -lt 30 -and (Get-AgentService); $i++) { Start-Sleep -Seconds 1 }
  } else {
    Log "Installing the $ServiceName service"
  }
  if ($exeChanged) {
    Copy-Item -LiteralPath $WinSW -Destination $ServiceExe -Force
    # WinSW builds for .NET Framework may come with a .config file (node-windows' copy does).
    if (Test-Path -LiteralPath "$WinSW.config") { Copy-Item -LiteralPath "$WinSW.config" -Destination "$ServiceExe.config" -Force }
  }
  [IO.File]::WriteAllText($xmlPath, $xml, (New-Object Text.UTF8Encoding($false)))
  & $ServiceExe install | Out-Host
  if ($LASTEXITCODE -ne 0 -or -not (Get-AgentService)) { Fail 1 "WinSW could not install the $ServiceName service (exit $LASTEXITCODE)." }
}

Install-AgentService

# --- 6. switch and restart --------------------------------------------------------------------

# Test-Path says false for a junction whose target is gone; Get-Item still finds the link.
function Test-Link([string]$Path) { [bool](Get-Item -LiteralPath $Path -Force -ErrorAction SilentlyContinue) }

function Switch-Current([string]$To) {
  # A directory cannot be replaced by a rename on Windows: the service is stopped meanwhile, and
  # the new junction is made first, so `current` is missing only between two file operations.
  $next = Join-Path $Prefix 'current.new'
  # Deleting a junction (RemoveDirectory) removes the link only, never the release it points to.
  if (Test-Link $next) { [IO.Directory]::Delete($next) }
  New-Item -ItemType Junction -Path $next -Target (Join-Path $Releases $To) | Out-Null
  if (Test-Link $Current) { [IO.Directory]::Delete($Current) }
  Rename-Item -LiteralPath $next -NewName 'current'
  Log "current -> releases\$To"
}

function Restart-Agent([string]$To) {
  Log 'Restarting the agent'
  Stop-AgentService
  Switch-Current $To
  Start-AgentService
}

# --- 7. health, or rollback -------------------------------------------------------------------

$script:Unhealthy = ''
# Healthy: /healthz answers with the version and keeps answering, from the same process (its
# uptime does not start again), for -Settle seconds.
function Wait-Healthy([string]$Expected) {
  Note "waiting for $HealthUrl to answer with version $Expected (up to $HealthTimeout s)"
  $deadline = (Get-Date).AddSeconds($HealthTimeout)
  $since = $null
  $firstUptime = 0
  while ((Get-Date) -lt $deadline) {
    $ok = $false
    $got = ''
    $uptime = 0
    try {
      $res = Invoke-WebRequest -Uri $HealthUrl -UseBasicParsing -TimeoutSec 2
      $body = $res.Content | ConvertFrom-Json
      $got = [string]$body.version
      $uptime = [int]$body.uptimeSec
      $ok = ($res.StatusCode -eq 200) -and ($got -eq $Expected)
    } catch {
      $ok = $false
    }
    if ($ok) {
      if ($null -eq $since -or $uptime -lt $firstUptime) {
        $since = Get-Date
        $firstUptime = $uptime
      }
      if (((Get-Date) - $since).TotalSeconds -ge $Settle) {
        Note "healthy: version $got, up ${uptime}s"
        return $true
      }
    } else {
      $since = $null
    }
    Start-Sleep -Milliseconds 500
  }
  $script:Unhealthy = "no lasting healthy answer within $HealthTimeout s"
  Note $script:Unhealthy
  return $false
}

function Show-RecentLogs {
  Write-Host ''
  Write-Host '--- last lines of the agent output ---'
  foreach ($name in "$ServiceName.err.log", "$ServiceName.out.log", "$ServiceName.wrapper.log") {
    $file = Join-Path $LogDir $name
    if (Test-Path -LiteralPath $file) {
      Write-Host "[$name]"
      Get-Content -LiteralPath $file -Tail 20 | Out-Host
    }
  }
  Write-Host '--------------------------------------'
}

Restart-Agent $Version

if (-not (Wait-Healthy $Version)) {
  Show-RecentLogs
  $failure = $script:Unhealthy
  $doctor = "& '$Node' '$Current\bin\branch-agent.js' doctor -c '$Config'"
  if ($Previous -and $Previous -ne $Version -and (Test-Path -LiteralPath (Join-Path $Releases $Previous))) {
    Log "Rolling back to $Previous"
    Restart-Agent $Previous
    if (Wait-Healthy $Previous) {
      Fail 3 ("branch-agent $Version did not become healthy ($failure). Rolled back: $Previous is running and healthy again. " +
        "The failed release stays in $Target for inspection; its output is in $LogDir.")
    }
    Fail 4 "branch-agent $Version did not become healthy ($failure), and neither did $Previous after the rollback. Check $LogDir and run: $doctor"
  }
  Fail 4 "branch-agent $Version did not become healthy ($failure) and there is no other release to roll back to (Windows keeps restarting the service). Check $LogDir and run: $doctor"
}

# --- 8. old releases --------------------------------------------------------------------------

function Get-VersionKey([string]$Name) {
  # 9.0.10 after 9.0.9: every number padded.
  ([regex]::Replace($Name, '\d+', { param($m) $m.Value.PadLeft(10, '0') }))
}
$installed = @(Get-ChildItem -LiteralPath $Releases -Directory | Where-Object { -not $_.Name.StartsWith('.') } |
    Sort-Object { Get-VersionKey $_.Name } | ForEach-Object { $_.Name })
$remove = $installed.Count - $Keep
foreach ($old in $installed) {
  if ($remove -le 0) { break }
  if ($old -eq $Version -or $old -eq $Previous) { continue }
  Note "removing the old release $old"
  Remove-Tree (Join-Path $Releases $old)
  $remove--
}
Get-ChildItem -LiteralPath $Releases -Directory -Filter '.staging-*' | ForEach-Object { Remove-Tree $_.FullName }

$previousNote = if ($Previous -and $Previous -ne $Version) { " (previous: $Previous, kept for rollback)" } else { '' }
Log "branch-agent $Version is installed and healthy$previousNote."
Note "status: Get-Service $ServiceName; logs: $LogDir"
Note "check everything: & '$Node' '$Current\bin\branch-agent.js' doctor -c '$Config'"
$installLock.Close()
exit 0
