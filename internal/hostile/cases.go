package hostile

import "strings"

// The contracts' sentences the table repeats (seeds 000 and 001).
const (
	// Traversal is seed 001's answer to any path that leaves the skill folder.
	Traversal = "Path traversal detected: cannot access files outside skill folder"
	// EmptyPath is the answer to an empty, blank or "." file path.
	EmptyPath = "Invalid file path: ''. file_path must be a non-empty path relative to the skill folder"
	// EmptyName is the answer to an empty skill name.
	EmptyName = "Invalid skill name: ''. Skill names must not be empty"
)

// badName is seed 000's answer to a name with '/', '\' or "..".
func badName(name string) string {
	return "Invalid skill name: '" + name + "'. Skill names must not contain '/', '\\', or '..'"
}

// controlName is the answer to a name with a control character, given as
// messages escape it.
func controlName(echoed string) string {
	return "Invalid skill name: '" + echoed + "'. Skill names must not contain control characters"
}

func noSkill(echoed string) string { return "Skill '" + echoed + "' not found in skills folder" }

// noFile is seed 001's answer to a missing (or hidden) file of calculator.
func noFile(echoed string) string {
	return "File '" + echoed + "' not found in skill 'calculator'"
}

func want(o Outcome, msg string) Want { return Want{Outcome: o, Msg: msg} }
func served(file string) Want         { return Want{Outcome: Served, File: file} }

var (
	escapes     = want(PathEscapes, Traversal)
	emptyPath   = want(InvalidPath, EmptyPath)
	notAFolder  = Want{Outcome: NotAFolder}
	calculatorD = served("calculator/SKILL.md")
)

// nameCases are about the skill name (Doc cases): the name-only
// operations run them, and the file reads read SKILL.md.
var nameCases = []Case{
	{Name: "a skill's document", Skill: "calculator", Doc: true,
		URIs: []string{"skill://calculator/SKILL.md"},
		Want: calculatorD, Override: map[Surface]Want{Dir: notAFolder}, FS: FSServed},
	{Name: "the document under other spellings", Skill: "calculator", Doc: true, URIOnly: true,
		URIs: []string{"SKILL://calculator/SKILL.md", "Skill://calculator/SKILL.MD", "skill://calculator/skill.md"},
		Want: calculatorD, Override: map[Surface]Want{Dir: notAFolder}},
	{Name: "seed 000 example 3: traversal in the name", Skill: "../../../etc/passwd", Doc: true,
		URIs: []string{"skill://..%2F..%2F..%2Fetc%2Fpasswd/SKILL.md"},
		Want: want(InvalidName, badName("../../../etc/passwd")), FS: FSInvalid},
	{Name: "a sibling through the name", Skill: "../weather", Doc: true,
		URIs: []string{"skill://..%2Fweather/SKILL.md", "skill://..%2Fweather/secret.md", "skill://..%2fweather", "skill://..%2Fweather"},
		Want: want(InvalidName, badName("../weather")), FS: FSInvalid},
	{Name: "slash in the name", Skill: "calculator/examples", Doc: true,
		URIs: []string{"skill://calculator%2Fexamples/SKILL.md"},
		Want: want(InvalidName, badName("calculator/examples")), FS: FSMissing},
	{Name: "trailing slash in the name", Skill: "calculator/", Doc: true,
		URIs: []string{"skill://calculator%2F/SKILL.md"},
		Want: want(InvalidName, badName("calculator/")), FS: FSInvalid},
	{Name: "backslashes in the name", Skill: `..\..\Windows`, Doc: true,
		URIs: []string{"skill://..%5C..%5CWindows/SKILL.md", `skill://..\..\Windows/SKILL.md`},
		Want: want(InvalidName, badName(`..\..\Windows`)), FS: FSMissing},
	{Name: "dot-dot as the name", Skill: "..", Doc: true,
		URIs: []string{"skill://../SKILL.md", "skill://%2e%2e/SKILL.md", "skill://%2E%2E/SKILL.md"},
		Want: want(InvalidName, badName("..")), FS: FSInvalid},
	{Name: "dot as the name", Skill: ".", Doc: true,
		URIs: []string{"skill://./SKILL.md", "skill://%2e/SKILL.md"},
		Want: want(InvalidName, badName(".")), FS: FSInvalid},
	{Name: "empty name", Skill: "", Doc: true,
		URIs: []string{"skill:///SKILL.md"},
		Want: want(InvalidName, EmptyName),
		Override: map[Surface]Want{GetSkill: want(BadArgument,
			`Missing argument: give 'skill_name' (e.g. "pdf") or a non-empty 'uri' (e.g. "skill://pdf/SKILL.md")`)},
		FS: FSInvalid},
	// The store takes a name as it is; the tools trim it.
	{Name: "blank name", Skill: "  ", Doc: true,
		Want:     want(SkillNotFound, noSkill("  ")),
		Override: map[Surface]Want{Args: want(InvalidName, EmptyName)}, FS: FSMissing},
	{Name: "white space around the name", Skill: " calculator ", Doc: true,
		Want: want(SkillNotFound, noSkill(" calculator ")), Override: map[Surface]Want{Args: calculatorD}, FS: FSMissing},
	{Name: "NUL in the name", Skill: "calc\x00ulator", Doc: true,
		URIs: []string{"skill://calc%00ulator/SKILL.md"},
		Want: want(InvalidName, controlName(`calc\x00ulator`)), FS: FSNoSuchName},
	{Name: "newline in the name", Skill: "calc\nulator", Doc: true,
		URIs: []string{"skill://calc%0Aulator/SKILL.md"},
		Want: want(InvalidName, controlName(`calc\nulator`)), FS: FSMissing},
	{Name: "seed 000 example 4: no such skill", Skill: "nonexistent", Doc: true,
		URIs: []string{"skill://nonexistent/SKILL.md"},
		Want: want(SkillNotFound, noSkill("nonexistent")), FS: FSMissing},
	{Name: "seed 000 example 2: a folder without SKILL.md", Skill: "nodoc", Doc: true,
		URIs: []string{"skill://nodoc/SKILL.md"},
		Want: want(NoSkillDoc, "SKILL.MD not found for skill 'nodoc'"), FS: FSMissing},
	// Names are matched exactly, whatever the backend's case rules.
	{Name: "the name in upper case", Skill: "CALCULATOR", Doc: true,
		URIs: []string{"skill://CALCULATOR/SKILL.md"},
		Want: want(SkillNotFound, noSkill("CALCULATOR"))},
	{Name: "a long name is cut in messages", Skill: strings.Repeat("x", 100000), Doc: true,
		Want: want(SkillNotFound, noSkill(strings.Repeat("x", 200)+"…"))},
	// Overlong UTF-8 for "..": bytes, not dots, and not UTF-8 (fs.ValidPath
	// refuses them). JSON turns each byte into U+FFFD.
	{Name: "overlong UTF-8 dots as the name", Skill: "\xc0\xae\xc0\xae", Doc: true,
		URIs:     []string{"skill://%C0%AE%C0%AE/SKILL.md"},
		Want:     want(SkillNotFound, noSkill(`\xc0\xae\xc0\xae`)),
		Override: map[Surface]Want{Args: want(SkillNotFound, noSkill("\ufffd\ufffd\ufffd\ufffd"))}, FS: FSInvalid},
	{Name: "fullwidth look-alikes of ../ in the name", Skill: "．．／weather", Doc: true,
		URIs: []string{"skill://%EF%BC%8E%EF%BC%8E%EF%BC%8Fweather/SKILL.md"},
		Want: want(SkillNotFound, noSkill("．．／weather")), FS: FSMissing},
	// A URI is decoded once: %252e is the three characters "%2e".
	{Name: "percent-encoding is literal in a name", Skill: "%2e%2e", Doc: true,
		URIs: []string{"skill://%252e%252e/SKILL.md"},
		Want: want(SkillNotFound, noSkill("%2e%2e")), FS: FSMissing},
	{Name: "malformed percent-encoding in the name", Skill: "calc%ZZ", Doc: true,
		URIs:     []string{"skill://calc%ZZ/SKILL.md"},
		Want:     want(SkillNotFound, noSkill("calc%ZZ")),
		Override: map[Surface]Want{URI: want(BadArgument, "Malformed URI 'skill://calc%ZZ/SKILL.md': bad percent-encoding in the skill name")},
		FS:       FSMissing},
	{Name: "another scheme", Doc: true, URIOnly: true,
		URIs: []string{"file:///etc/passwd"},
		Want: want(BadArgument, "Unsupported URI 'file:///etc/passwd': only skill:// URIs are supported, such as skill://NAME/SKILL.md"),
		Override: map[Surface]Want{Resource: want(NoResource,
			"Resource not found: this server serves skill:// URIs only, such as skill://NAME/SKILL.md")}},
	{Name: "blank URI", Doc: true, URIOnly: true,
		URIs: []string{"  "},
		Want: want(BadArgument, "Missing or empty 'uri': provide a non-empty skill:// URI such as skill://NAME/SKILL.md"),
		Override: map[Surface]Want{Resource: want(NoResource,
			"Resource not found: this server serves skill:// URIs only, such as skill://NAME/SKILL.md")}},
}

// pathCase is a case about path p in calculator's folder.
func pathCase(name, p string, uris []string, w Want, fsw FSOutcome, over map[Surface]Want) Case {
	return Case{Name: name, Skill: "calculator", Path: p, URIs: uris, Want: w, FS: fsw, Override: over}
}

// checked marks a case whose FileNotFound the checks of the path give,
// before any lookup (see Case.PathCheck).
func checked(c Case) Case {
	c.PathCheck = true
	return c
}

// dirWant overrides the answer of resources/directory/read.
func dirWant(w Want) map[Surface]Want { return map[Surface]Want{Dir: w} }

var (
	deepPath = strings.Repeat("d/", 16) + "x.md"
	longPath = strings.Repeat("a", 210) // over the 200 bytes messages repeat, under a local disk's 255
	// overlongName is a file name in a folder that exists, longer than the
	// 255 bytes a local disk allows in a name (ENAMETOOLONG).
	overlongName = "examples/" + strings.Repeat("n", 300)
	// overlongKey is a path of 3,276 bytes within the folder depth limit,
	// each name under a disk's limit, the whole over the 1,024 bytes of an
	// object-storage key (S3's KeyTooLongError).
	overlongKey = "examples/" + strings.Repeat(strings.Repeat("p", 250)+"/", 13) + "x.md"
)

// pathCases are about a file path in calculator's folder.
var pathCases = []Case{
	pathCase("seed 001 example 1: a file", "examples/basic.py", []string{"skill://calculator/examples/basic.py"},
		served("calculator/examples/basic.py"), FSServed, dirWant(notAFolder)),
	pathCase("seed 001 example 3: a missing file", "examples/missing.py", []string{"skill://calculator/examples/missing.py"},
		want(FileNotFound, noFile("examples/missing.py")), FSMissing, nil),
	// Traversal.
	pathCase("seed 001 example 4: traversal", "../../../etc/passwd",
		[]string{"skill://calculator/../../../etc/passwd", "skill://calculator/..%2F..%2F..%2Fetc%2Fpasswd"},
		escapes, FSInvalid, nil),
	pathCase("a sibling skill's file", "../weather/secret.md",
		[]string{"skill://calculator/../weather/secret.md", "skill://calculator/..%2Fweather%2Fsecret.md",
			"skill://calculator/%2e%2e/weather/secret.md", "skill://calculator/%2E%2E%2Fweather%2Fsecret.md"},
		escapes, FSInvalid, nil),
	pathCase("a sibling skill's folder", "../weather", []string{"skill://calculator/../weather", "skill://calculator/..%2Fweather"},
		escapes, FSInvalid, nil),
	pathCase("an escape from a sub-folder", "docs/../../weather/secret.md", []string{"skill://calculator/docs/../../weather/secret.md"},
		escapes, FSInvalid, nil),
	pathCase("dot-dot as the path", "..", []string{"skill://calculator/..", "skill://calculator/%2e%2e"}, escapes, FSInvalid, nil),
	pathCase("seed 001: Windows traversal", `..\..\..\Windows\System32`,
		[]string{"skill://calculator/..%5C..%5C..%5CWindows%5CSystem32", `skill://calculator/..\..\..\Windows\System32`},
		escapes, FSMissing, nil),
	pathCase("an absolute path", "/etc/passwd", []string{"skill://calculator//etc/passwd", "skill://calculator/%2Fetc%2Fpasswd"},
		escapes, FSInvalid, nil),
	pathCase("a drive letter", `C:\Windows\win.ini`, []string{"skill://calculator/C:%5CWindows%5Cwin.ini"}, escapes, FSMissing, nil),
	pathCase("a drive letter with slashes", "C:/Windows/win.ini", []string{"skill://calculator/C:/Windows/win.ini"}, escapes, FSMissing, nil),
	pathCase("a lower-case drive letter", "c:/x", []string{"skill://calculator/c:/x", "skill://calculator/c%3A%2Fx"}, escapes, FSMissing, nil),
	pathCase("NUL in the path", "examples/basic.py\x00.png", []string{"skill://calculator/examples/basic.py%00.png"},
		escapes, FSNoSuchName, nil),
	pathCase("a newline in the path", "examples\nbasic.py", []string{"skill://calculator/examples%0Abasic.py"}, escapes, FSMissing, nil),
	// Empty paths.
	pathCase("an empty path", "", []string{"skill://calculator/", "skill://calculator"},
		emptyPath, FSInvalid, dirWant(served("calculator"))),
	{Name: "a folder listing of no skill", Skill: "nonexistent", URIs: []string{"skill://nonexistent", "skill://nonexistent/"},
		Want: emptyPath, Override: dirWant(want(SkillNotFound, noSkill("nonexistent"))), FS: FSInvalid},
	pathCase("a blank path", "  ", []string{"skill://calculator/%20%20"}, emptyPath, FSMissing, nil),
	pathCase("dot as the path", ".", []string{"skill://calculator/."}, emptyPath, 0, nil),
	// Folders and trailing slashes: a path ending in "/" never names a file.
	pathCase("a folder", "examples", []string{"skill://calculator/examples"},
		want(IsDir, "Cannot read file 'examples': it is a directory"), 0, dirWant(served("calculator/examples"))),
	checked(pathCase("a trailing slash on a folder", "examples/", []string{"skill://calculator/examples/"},
		want(FileNotFound, noFile("examples/")), FSInvalid, dirWant(served("calculator/examples")))),
	checked(pathCase("a trailing slash on a file", "examples/basic.py/", []string{"skill://calculator/examples/basic.py/"},
		want(FileNotFound, noFile("examples/basic.py/")), FSInvalid, dirWant(notAFolder))),
	checked(pathCase("a trailing slash on SKILL.md", "SKILL.md/", []string{"skill://calculator/SKILL.md/"},
		want(FileNotFound, noFile("SKILL.md/")), FSInvalid, dirWant(notAFolder))),
	checked(pathCase("a trailing dot-slash", "empty.txt/./", []string{"skill://calculator/empty.txt/./"},
		want(FileNotFound, noFile("empty.txt/./")), FSInvalid, dirWant(notAFolder))),
	pathCase("a path under a file", "empty.txt/x", []string{"skill://calculator/empty.txt/x"},
		want(FileNotFound, noFile("empty.txt/x")), FSThroughFile, nil),
	// Paths that stay inside the folder are served cleaned (a backend
	// refuses them raw).
	pathCase("dot-dot that stays inside", "docs/../SKILL.md", []string{"skill://calculator/docs/../SKILL.md"},
		calculatorD, FSInvalid, dirWant(notAFolder)),
	pathCase("a double slash", "examples//basic.py", []string{"skill://calculator/examples//basic.py"},
		served("calculator/examples/basic.py"), FSInvalid, dirWant(notAFolder)),
	pathCase("a leading dot-slash", "./examples/basic.py", nil, served("calculator/examples/basic.py"), FSInvalid, nil),
	pathCase("white space around the path", "  examples/basic.py\n", nil, served("calculator/examples/basic.py"), FSMissing, nil),
	pathCase("the caller's spelling is kept", "./missing.md", nil, want(FileNotFound, noFile("./missing.md")), FSInvalid, nil),
	// Hidden files and folders are neither listed nor served, however named.
	checked(pathCase("a hidden file", ".env", []string{"skill://calculator/.env", "skill://calculator/%2Eenv"},
		want(FileNotFound, noFile(".env")), 0, nil)),
	checked(pathCase("a file in a hidden folder", ".git/config",
		[]string{"skill://calculator/.git/config", "skill://calculator/%2Egit/config", "skill://calculator/.git%2Fconfig"},
		want(FileNotFound, noFile(".git/config")), 0, nil)),
	checked(pathCase("a hidden file in a folder", "docs/.draft.md", []string{"skill://calculator/docs/.draft.md"},
		want(FileNotFound, noFile("docs/.draft.md")), 0, nil)),
	checked(pathCase("a hidden file after dot-slash", "./.env", []string{"skill://calculator/./.env"},
		want(FileNotFound, noFile("./.env")), 0, dirWant(want(FileNotFound, noFile(".env"))))),
	checked(pathCase("a hidden folder reached through dot-dot", "docs/../.git/config", []string{"skill://calculator/docs/../.git/config"},
		want(FileNotFound, noFile("docs/../.git/config")), 0, dirWant(want(FileNotFound, noFile(".git/config"))))),
	checked(pathCase("a hidden folder", ".git", []string{"skill://calculator/.git"}, want(FileNotFound, noFile(".git")), 0, nil)),
	checked(pathCase("a hidden folder with a slash", ".git/", []string{"skill://calculator/.git/"},
		want(FileNotFound, noFile(".git/")), 0, dirWant(want(FileNotFound, noFile(".git"))))),
	// Encoding.
	pathCase("percent-encoding is literal in a path", "%2e%2e/weather/secret.md", []string{"skill://calculator/%252e%252e/weather/secret.md"},
		want(FileNotFound, noFile("%2e%2e/weather/secret.md")), FSMissing, nil),
	pathCase("malformed percent-encoding in a path", "%zz", []string{"skill://calculator/%zz"},
		want(FileNotFound, noFile("%zz")), FSMissing,
		map[Surface]Want{URI: want(BadArgument, "Malformed URI 'skill://calculator/%zz': bad percent-encoding in the path")}),
	pathCase("a query string is part of the path", "SKILL.md?raw=1", []string{"skill://calculator/SKILL.md?raw=1"},
		want(FileNotFound, noFile("SKILL.md?raw=1")), FSMissing, nil),
	pathCase("overlong UTF-8 dots in a path", "\xc0\xae\xc0\xae/weather/secret.md", []string{"skill://calculator/%C0%AE%C0%AE/weather/secret.md"},
		escapes, FSInvalid,
		map[Surface]Want{Args: want(FileNotFound, noFile("\ufffd\ufffd\ufffd\ufffd/weather/secret.md"))}),
	pathCase("fullwidth look-alikes of ../ in a path", "．．／weather／secret.md",
		[]string{"skill://calculator/%EF%BC%8E%EF%BC%8E%EF%BC%8Fweather%EF%BC%8Fsecret.md"},
		want(FileNotFound, noFile("．．／weather／secret.md")), FSMissing, nil),
	// Case: paths are matched exactly (on a case-sensitive backend); any
	// spelling of SKILL.md in a URI names the document.
	pathCase("a path in upper case", "EXAMPLES/basic.py", []string{"skill://calculator/EXAMPLES/basic.py"},
		want(FileNotFound, noFile("EXAMPLES/basic.py")), 0, nil),
	pathCase("SKILL.MD as a path", "SKILL.MD", []string{"skill://calculator/SKILL.MD"},
		want(FileNotFound, noFile("SKILL.MD")), 0, map[Surface]Want{Resource: calculatorD, Dir: notAFolder}),
	// Content no text surface serves.
	pathCase("a binary file", "assets/logo.png", []string{"skill://calculator/assets/logo.png"},
		served("calculator/assets/logo.png"), FSServed, map[Surface]Want{
			Args: want(NotText, "Cannot read file 'assets/logo.png': binary content cannot be returned as text; read it as the resource skill://calculator/assets/logo.png"),
			Dir:  notAFolder}),
	// Size: deeper than store.MaxFolderDepth reads as not found; long
	// paths are cut in messages.
	checked(pathCase("a path deeper than the folder depth limit", deepPath, []string{"skill://calculator/" + deepPath},
		want(FileNotFound, noFile(deepPath)), FSMissing, nil)),
	pathCase("a long path is cut in messages", longPath, nil, want(FileNotFound, noFile(strings.Repeat("a", 200)+"…")), 0, nil),
	// No file has a name a disk refuses as too long: it is not found, as on
	// a backend with no such limit, not a failure of the source.
	pathCase("a file name longer than a disk allows", overlongName, nil,
		want(FileNotFound, noFile("examples/"+strings.Repeat("n", 191)+"…")), FSMissing, nil),
	pathCase("a path longer than object storage allows", overlongKey, nil,
		want(FileNotFound, noFile("examples/"+strings.Repeat("p", 191)+"…")), FSMissing, nil),
}
