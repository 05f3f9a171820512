# The PowerShell part of clrscope's harmlessness soak (scripts/soak.mjs): a script that exercises the
# language, the pipeline, regular expressions, exceptions and jobs, writes what it computed to
# stdout and to files in -OutDir, and exits 0. Everything it prints depends only on its input, so a
# run under clrscope must print and write the same as a run without it.
# $env:SOAK_START_DELAY_MS, when set, makes it wait that long first (so a profiler can be attached
# before the work starts).
param(
    [Parameter(Mandatory)] [string] $OutDir,
    [int] $Scale = 1
)
$ErrorActionPreference = 'Stop'
Set-StrictMode -Version Latest
if ($env:SOAK_START_DELAY_MS) { Start-Sleep -Milliseconds ([int]$env:SOAK_START_DELAY_MS) }
New-Item -ItemType Directory -Force -Path $OutDir | Out-Null

# ---- language: classes, enums, inheritance, static members, closures, recursion, switch ----
enum Suit { Clubs; Diamonds; Hearts; Spades }

class Card {
    [Suit] $Suit
    [int] $Rank
    Card([Suit] $suit, [int] $rank) { $this.Suit = $suit; $this.Rank = $rank }
    [string] ToString() { return '{0}{1}' -f @('', 'A', '2', '3', '4', '5', '6', '7', '8', '9', 'T', 'J', 'Q', 'K')[$this.Rank], $this.Suit.ToString()[0] }
    [int] Score() { return [math]::Min($this.Rank, 10) }
}

class Deck {
    [System.Collections.Generic.List[Card]] $Cards = [System.Collections.Generic.List[Card]]::new()
    static [long] $Seed = 12345
    Deck() { foreach ($s in [Suit].GetEnumValues()) { foreach ($r in 1..13) { $this.Cards.Add([Card]::new($s, $r)) } } }
    static [int] Next([int] $bound) {
        [Deck]::Seed = ([Deck]::Seed * [long]1103515245 + 12345) % [long]2147483648
        return [int](([Deck]::Seed -shr 8) % $bound)
    }
    [void] Shuffle() {
        for ($i = $this.Cards.Count - 1; $i -gt 0; $i--) {
            $j = [Deck]::Next($i + 1)
            $t = $this.Cards[$i]; $this.Cards[$i] = $this.Cards[$j]; $this.Cards[$j] = $t
        }
    }
}

function Get-Fibonacci([int] $n) { if ($n -lt 2) { return $n } return (Get-Fibonacci ($n - 1)) + (Get-Fibonacci ($n - 2)) }

function New-Counter {
    $count = 0
    { $script:counterCalls++; $count++; $count }.GetNewClosure()
}

$deck = [Deck]::new()
$deck.Shuffle()
$hand = $deck.Cards | Select-Object -First 7
"hand: $($hand -join ' ') score $(($hand | ForEach-Object Score | Measure-Object -Sum).Sum)"
"fib(20) = $(Get-Fibonacci 20)"
$script:counterCalls = 0
$counter = New-Counter
1..5 | ForEach-Object { $null = & $counter }
"closure counted $(& $counter) after $script:counterCalls calls"
$kinds = foreach ($x in 0, 1, 'two', 3.5, $null, @(1, 2), @{ a = 1 }) {
    switch ($x) {
        { $_ -is [int] -and $_ -gt 0 } { 'positive int'; break }
        { $_ -is [int] } { 'int'; break }
        { $_ -is [string] } { 'string'; break }
        { $_ -is [double] } { 'double'; break }
        { $_ -is [hashtable] } { 'hashtable'; break }
        $null { 'null'; break }
        default { "other $($_.GetType().Name)" }
    }
}
"switch: $($kinds -join ', ')"
$splat = @{ InputObject = 'a,b,,c'; Delimiter = ',' }
"splatting: $((ConvertFrom-Csv @splat -Header one, two, three, four).four)"

# ---- the pipeline: generation, filtering, grouping, sorting, measuring, JSON and CSV ----
$n = 20000 * $Scale
$records = 1..$n | ForEach-Object {
    [pscustomobject]@{ Id = $_; Group = 'g{0:D2}' -f ($_ % 17); Value = ($_ * 7919) % 1000; Even = ($_ % 2 -eq 0) }
}
$groups = $records | Where-Object Even | Group-Object Group | Sort-Object Name | ForEach-Object {
    $m = $_.Group | Measure-Object Value -Sum -Average -Maximum
    [pscustomobject]@{ Group = $_.Name; Count = $_.Count; Sum = $m.Sum; Average = [math]::Round($m.Average, 4); Max = $m.Maximum }
}
"groups: $($groups.Count), first $($groups[0].Group) count $($groups[0].Count) sum $($groups[0].Sum)"
$top = $records | Sort-Object -Property @{ Expression = 'Value'; Descending = $true }, Id | Select-Object -First 5 -ExpandProperty Id
"top ids by value: $($top -join ',')"
$groups | Export-Csv -Path (Join-Path $OutDir 'groups.csv') -NoTypeInformation -UseQuotes AsNeeded
$back = Import-Csv (Join-Path $OutDir 'groups.csv')
"csv round trip: $($back.Count) rows, sum $(($back | ForEach-Object { [int]$_.Sum } | Measure-Object -Sum).Sum)"
$json = $groups | Select-Object -First 4 | ConvertTo-Json -Depth 4
Set-Content -Path (Join-Path $OutDir 'groups.json') -Value $json
$parsed = Get-Content (Join-Path $OutDir 'groups.json') -Raw | ConvertFrom-Json
"json round trip: $($parsed.Count) objects, $($parsed[3].Group)"
$cmp = Compare-Object -ReferenceObject (1..10) -DifferenceObject (5..14)
"compare: $(($cmp | ForEach-Object { '{0}{1}' -f $_.SideIndicator, $_.InputObject }) -join ' ')"
$hash = [ordered]@{}
foreach ($r in $records | Select-Object -First 300) { $hash[$r.Group] = ($hash[$r.Group] ?? 0) + $r.Value }
"ordered dictionary: $($hash.Count) keys, g05=$($hash['g05'])"

function Get-Squares {
    [CmdletBinding()]
    param([Parameter(ValueFromPipeline)] [int] $Number)
    begin { $sum = 0 }
    process { $sum += $Number * $Number; $Number * $Number }
    end { Write-Verbose "sum $sum" }
}
"advanced function: $((1..10 | Get-Squares | Measure-Object -Sum).Sum)"

# ---- regular expressions ----
$text = (1..(2000 * $Scale) | ForEach-Object { "user$_@host$($_ % 9).example.org said: order #$($_ * 13) at 2026-$('{0:D2}' -f ($_ % 12 + 1))-$('{0:D2}' -f ($_ % 28 + 1))" }) -join "`n"
$mail = [regex]::Matches($text, '(?<user>\w+)@(?<host>[\w.]+)')
"regex: $($mail.Count) addresses, $(($mail | ForEach-Object { $_.Groups['host'].Value } | Sort-Object -Unique).Count) hosts"
$dates = [regex]::Matches($text, '\b(?<y>\d{4})-(?<m>\d{2})-(?<d>\d{2})\b') | Group-Object { $_.Groups['m'].Value } | Sort-Object Name
"dates per month: $(($dates | ForEach-Object { "$($_.Name):$($_.Count)" }) -join ' ')"
$replaced = $text -replace '#(\d+)', { '#' + ([int]$_.Groups[1].Value * 2) }
"replace with a script block: $($replaced.Length) chars, $(([regex]::Matches($replaced, '#\d*[02468]\b')).Count) even order numbers"
$split = 'alpha, beta;gamma  delta|epsilon' -split '[,;|\s]+'
"split: $($split -join '/')"
$lines = $text -split "`n"
"-match on an array: $(($lines -match 'host3\.').Count) lines; -notmatch: $(($lines -notmatch 'order #\d{3,}').Count)"
Set-Content -Path (Join-Path $OutDir 'text.txt') -Value $replaced
$sel = Select-String -Path (Join-Path $OutDir 'text.txt') -Pattern 'user1\d\d@' -AllMatches
"select-string: $($sel.Count) lines"

# ---- exceptions ----
$caught = [System.Collections.Generic.List[string]]::new()
function Invoke-Deep([int] $depth) { if ($depth -eq 0) { throw [System.InvalidOperationException]::new('at the bottom') } Invoke-Deep ($depth - 1) }
try { Invoke-Deep 40 } catch [System.InvalidOperationException] { $caught.Add("deep: $($_.Exception.Message)") }
try { [int]::Parse('twelve') } catch { $caught.Add("parse: $($_.Exception.InnerException.GetType().Name)") }
try { $zero = 0; 1 / $zero } catch [System.DivideByZeroException] { $caught.Add('divide by zero') }
try { $null.ToString() } catch { $caught.Add("null method: $($_.FullyQualifiedErrorId)") }
try { @(1, 2, 3)[1].NoSuchMethod() } catch { $caught.Add("no method: $($_.FullyQualifiedErrorId)") }
try { Get-Item -Path (Join-Path $OutDir 'missing.file') } catch [System.Management.Automation.ItemNotFoundException] { $caught.Add('item not found') }
try { throw 'a plain string' } catch { $caught.Add("string: $($_.Exception.GetType().Name)") }
try { Write-Error 'written' -ErrorAction Stop } catch { $caught.Add("write-error: $($_.CategoryInfo.Category)") }
$finally = 0
foreach ($i in 1..200) { try { if ($i % 3 -eq 0) { throw "n$i" } } catch { $finally-- } finally { $finally += 2 } }
$caught.Add("finally blocks: $finally")
function Test-Trap { trap { $script:trapped++; continue } ; throw 'one'; throw 'two'; 'after traps' }
$script:trapped = 0
$caught.Add("trap: $(Test-Trap) $script:trapped")
try {
    try { [System.IO.File]::ReadAllText((Join-Path $OutDir 'nope.txt')) }
    catch [System.IO.FileNotFoundException] { throw [System.ApplicationException]::new('wrapped', $_.Exception) }
} catch { $caught.Add("rethrown: $($_.Exception.GetType().Name) <- $($_.Exception.InnerException.GetType().Name)") }
$errorsSeen = 0
1..50 | ForEach-Object { try { [datetime]::ParseExact("bad$_", 'yyyy', $null) } catch { $errorsSeen++ } }
$caught.Add("exceptions in a pipeline: $errorsSeen")
"exceptions: $($caught -join '; ')"

# ---- jobs: thread jobs, a parallel ForEach-Object, and a background job (a child process) ----
$threadJobs = 1..6 | ForEach-Object { Start-ThreadJob -ArgumentList $_ -ScriptBlock { param($k) $s = 0; foreach ($i in 1..(20000 * $k)) { $s += $i % ($k + 3) }; "$k=$s" } }
$threadOut = $threadJobs | Receive-Job -Wait -AutoRemoveJob
"thread jobs: $(($threadOut | Sort-Object) -join ' ')"
$parallel = 1..16 | ForEach-Object -Parallel { [math]::Pow($_, 3) } -ThrottleLimit 4 | Sort-Object
"parallel: $(($parallel | Measure-Object -Sum).Sum)"
$job = Start-Job -ScriptBlock { param($n) (1..$n | ForEach-Object { $_ * $_ } | Measure-Object -Sum).Sum } -ArgumentList 3000
$jobOut = $job | Receive-Job -Wait -AutoRemoveJob
"background job (a child process): $jobOut"

# ---- a summary file of everything above, its hash printed ----
$summary = [ordered]@{ hand = ($hand -join ' '); groups = $groups.Count; addresses = $mail.Count; caught = $caught.Count; threadJobs = $threadOut.Count; job = [long]$jobOut }
$summary | ConvertTo-Json | Set-Content -Path (Join-Path $OutDir 'summary.json')
"summary sha256 $((Get-FileHash -Algorithm SHA256 (Join-Path $OutDir 'summary.json')).Hash)"
exit 0
