console.log(require("fs").readdirSync(process.argv[2]))
